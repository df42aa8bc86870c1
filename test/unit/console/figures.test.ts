import { describe, expect, it } from 'vitest';
import { CircuitBreaker } from '../../../src/requests/circuit-breaker.js';
import { OPERATIONS, type Lane, type Operation } from '../../../src/contract/operations.js';
import type { LaneFigures } from '../../../src/limits/lane-gate.js';
import { localFigures } from '../../../src/console/figures.js';
import type { PausedPartition } from '../../../src/consumers/runtime.js';
import type { ScheduleLimiter, Slot } from '../../../src/limits/types.js';
import { createMetrics } from '../../../src/observability/metrics.js';

const noQueue = { queued: 0, oldestWaitMs: 0 };

function figures(
  paused: PausedPartition[] = [],
  laneQueues: (op: Operation) => Record<Lane, LaneFigures> = () => ({ interactive: noQueue, bulk: noQueue }),
) {
  const breaker = new CircuitBreaker({ failureThreshold: 3, cooldownMs: 1000 });
  return localFigures({
    replica: 'r1',
    metrics: createMetrics(),
    limits: Object.fromEntries(
      OPERATIONS.map((op) => [op, { ratePerSecond: 10, maxConcurrent: 2 }]),
    ) as Record<Operation, { ratePerSecond: number; maxConcurrent: number }>,
    breakerFor: () => breaker,
    paused: () => paused,
    requestTopic: (op, lane) => `verification.requests.${op}${lane === 'bulk' ? '.bulk' : ''}`,
    laneQueues,
    now: () => Date.parse('2026-11-24T10:00:00.000Z'),
  });
}

/** A limiter that runs fn on `runs` slots in turn, as the real one does when a send is refused. */
function renewingLimiter(runs: number, seen: { inFlight: number[] }, read: () => number): ScheduleLimiter {
  return {
    async schedule(fn) {
      for (let renewals = 0; ; renewals++) {
        const slot: Slot = { confirm: () => undefined, renewals };
        try {
          return await fn(slot);
        } catch (error) {
          if (renewals + 1 >= runs) throw error;
        } finally {
          seen.inFlight.push(read());
        }
      }
    },
    backoff: () => undefined,
  };
}

describe('the console figures of a replica', () => {
  it('show the partitions a hanging transaction holds, with how long, apart from the other pauses', () => {
    const { vehicle, 'lawsuits-summary': summary } = figures([
      {
        topic: 'verification.requests.vehicle',
        partition: 2,
        reasons: ['unstable-offsets'],
        hangingForMs: 63_400,
      },
      { topic: 'verification.requests.vehicle', partition: 0, reasons: ['unstable-offsets'] },
    ]).snapshot().operations;
    expect(vehicle?.paused).toEqual(['2 (unstable-offsets)', '0 (unstable-offsets)']);
    expect(vehicle?.hanging).toEqual(['2 (63 s)']);
    expect(summary?.hanging).toEqual([]);
  });

  it('count a call run again on a new slot once, and none in flight after it', async () => {
    const local = figures();
    const seen = { inFlight: [] as number[] };
    const read = (): number => local.snapshot().operations.vehicle?.inFlight ?? -1;
    const counted = local.counted('vehicle', renewingLimiter(2, seen, read));
    let runs = 0;
    const result = await counted.schedule(() =>
      ++runs === 1 ? Promise.reject(new Error('slot missed')) : Promise.resolve('ok'),
    );
    expect(result).toBe('ok');
    expect(runs).toBe(2);
    expect(seen.inFlight).toEqual([0, 0]);
    expect(local.snapshot().operations.vehicle).toMatchObject({ calls: 1, callsThisHour: 1, inFlight: 0 });
  });

  it("count each lane's calls and carry each lane's queue in the limiter", async () => {
    const local = figures([], (op) =>
      op === 'lawsuits-summary'
        ? { interactive: noQueue, bulk: { queued: 40, oldestWaitMs: 1234.6 } }
        : { interactive: noQueue, bulk: noQueue },
    );
    const counted = local.counted(
      'lawsuits-summary',
      renewingLimiter(1, { inFlight: [] }, () => 0),
    );
    await counted.schedule(() => Promise.resolve(), { lane: 'bulk' });
    await counted.schedule(() => Promise.resolve(), { lane: 'bulk' });
    await counted.schedule(() => Promise.resolve());
    const { 'lawsuits-summary': summary, vehicle } = local.snapshot().operations;
    expect(summary?.calls).toBe(3);
    expect(summary?.lanes).toEqual({
      interactive: { calls: 1, queued: 0, oldestWaitMs: 0 },
      bulk: { calls: 2, queued: 40, oldestWaitMs: 1235 },
    });
    expect(vehicle?.lanes).toEqual({
      interactive: { calls: 0, queued: 0, oldestWaitMs: 0 },
      bulk: { calls: 0, queued: 0, oldestWaitMs: 0 },
    });
  });
});
