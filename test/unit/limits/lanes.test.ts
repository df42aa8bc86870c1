import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Lane } from '../../../src/contract/operations.js';
import {
  createOperationLimiter,
  type ManagedOperationLimiter,
} from '../../../src/limits/operation-limiter.js';
import { createMemoryQuotaStore } from '../../../src/limits/quota-store.js';
import { quotaShape } from '../../../src/limits/settings.js';
import { maxInWindow, silentLogger } from './helpers.js';

const RATE = 100;
let limiter: ManagedOperationLimiter | undefined;

function lanedLimiter(bulkMinShare = 0.1, maxConcurrent = 50): ManagedOperationLimiter {
  const now = (): number => Date.now();
  limiter = createOperationLimiter({
    operation: 'vehicle',
    settings: { ratePerSecond: RATE, maxConcurrent },
    store: createMemoryQuotaStore({ ...quotaShape(RATE, 0), spendCapPerHour: undefined }, now),
    shared: false,
    logger: silentLogger,
    now,
    // Fake timers fire on time: a small tolerance makes every queued slot a paced one.
    lateToleranceMs: 2,
    onSpendCap: () => undefined,
    lanes: { bulkMinShare },
  });
  return limiter;
}

/** Schedules `count` calls of `lane` that end at once; each start is logged with its time. */
function calls(
  scheduler: ManagedOperationLimiter,
  lane: Lane,
  count: number,
  starts: { lane: Lane; at: number }[],
): Promise<unknown> {
  return Promise.allSettled(
    Array.from({ length: count }, () =>
      scheduler.schedule(
        () => {
          starts.push({ lane, at: Date.now() });
          return Promise.resolve();
        },
        { lane },
      ),
    ),
  );
}

beforeEach(() => {
  vi.useFakeTimers({ now: new Date('2026-11-21T10:00:00.000Z') });
});

afterEach(async () => {
  const closing = limiter?.close();
  await vi.runOnlyPendingTimersAsync();
  await closing;
  limiter = undefined;
  vi.useRealTimers();
});

describe('lanes in the operation limiter', () => {
  it('starts an interactive call behind a bulk backlog on the next bulk slot, not behind the lookahead', async () => {
    const scheduler = lanedLimiter();
    const starts: { lane: Lane; at: number }[] = [];
    void calls(scheduler, 'bulk', 300, starts);
    await vi.advanceTimersByTimeAsync(500);
    const asked = Date.now();
    const bulkBefore = starts.length;
    void calls(scheduler, 'interactive', 1, starts);
    await vi.advanceTimersByTimeAsync(1_000);
    const index = starts.findIndex((s) => s.lane === 'interactive');
    expect(index).toBeGreaterThanOrEqual(0);
    // It takes the slot the next bulk call was sleeping towards (one spacing, 10 ms at 100/s),
    // not one behind the bulk lookahead (10 slots) or bottleneck's maxConcurrent (50) of them.
    expect(index - bulkBefore).toBeLessThanOrEqual(1);
    expect((starts[index]?.at ?? Infinity) - asked).toBeLessThanOrEqual(12);
    expect(scheduler.stats.lanes.bulk.queued).toBeGreaterThan(0);
    expect(scheduler.stats.lanes.bulk.oldestWaitMs).toBeGreaterThanOrEqual(1_500);
  });

  it('loses no slot to the bulk calls interactive calls displace', async () => {
    const scheduler = lanedLimiter();
    const starts: { lane: Lane; at: number }[] = [];
    const bulk = calls(scheduler, 'bulk', 200, starts);
    await vi.advanceTimersByTimeAsync(200);
    for (let i = 0; i < 20; i++) {
      void calls(scheduler, 'interactive', 1, starts);
      await vi.advanceTimersByTimeAsync(50);
    }
    await vi.advanceTimersByTimeAsync(3_000);
    await bulk;
    // 220 calls at 100/s: the displaced bulk calls ask again, each slot is used once.
    expect(starts).toHaveLength(220);
    const last = Math.max(...starts.map((s) => s.at));
    const first = Math.min(...starts.map((s) => s.at));
    expect(last - first).toBeLessThanOrEqual(2_200);
    expect(
      maxInWindow(
        starts.map((s) => s.at),
        1_000,
      ),
    ).toBeLessThanOrEqual(RATE);
  });

  it('keeps a large bulk share under an interactive flood', async () => {
    const scheduler = lanedLimiter(0.5);
    const starts: { lane: Lane; at: number }[] = [];
    void calls(scheduler, 'bulk', 400, starts);
    await vi.advanceTimersByTimeAsync(100);
    // A flood of interactive calls that alone would fill the limit for four seconds.
    void calls(scheduler, 'interactive', 400, starts);
    await vi.advanceTimersByTimeAsync(3_000);
    const counted = starts.filter((s) => s.at >= Date.parse('2026-11-21T10:00:01.000Z'));
    const bulkShare = counted.filter((s) => s.lane === 'bulk').length / counted.length;
    expect(bulkShare).toBeGreaterThanOrEqual(0.45);
  });

  it('gives bulk its reserved share while interactive calls alone would fill the limit', async () => {
    const scheduler = lanedLimiter(0.2);
    const starts: { lane: Lane; at: number }[] = [];
    void calls(scheduler, 'interactive', 600, starts);
    void calls(scheduler, 'bulk', 600, starts);
    await vi.advanceTimersByTimeAsync(4_000);
    const from = Date.parse('2026-11-21T10:00:01.000Z');
    const counted = starts.filter((s) => s.at >= from);
    const bulk = counted.filter((s) => s.lane === 'bulk').length;
    expect(counted.length).toBeGreaterThan(RATE * 2.8);
    expect(bulk / counted.length).toBeGreaterThanOrEqual(0.17);
    // Interactive takes the rest: the share is a floor for bulk, not a split.
    expect(bulk / counted.length).toBeLessThanOrEqual(0.35);
  });

  it('lets bulk use the whole limit when no interactive call waits', async () => {
    const scheduler = lanedLimiter();
    const starts: { lane: Lane; at: number }[] = [];
    void calls(scheduler, 'bulk', 500, starts);
    await vi.advanceTimersByTimeAsync(3_000);
    expect(starts.length).toBeGreaterThanOrEqual(RATE * 2.9);
    expect(starts.length).toBeLessThanOrEqual(RATE * 3 + 12);
  });
});
