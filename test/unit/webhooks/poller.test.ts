import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { memoryPendingStore } from '../../../src/webhooks/memory-pending-store.js';
import type { PendingStore } from '../../../src/webhooks/pending-store.js';
import { createPoller, wakingStore, type Poller } from '../../../src/webhooks/poller.js';
import { pendingSearch, silent } from './helpers.js';

/** The poller's settings every test here shares: a 1 s first poll, 10 s idle, one at a time. */
const TIMING = {
  intervalMs: 1_000,
  idleMs: 10_000,
  batchSize: 2,
  leaseMs: 60_000,
  concurrency: 1,
  now: () => Date.now(),
  logger: silent,
};

/** A poller on a memory store under fake timers, recording when it scanned and what it took. */
function setup(): { store: PendingStore; poller: Poller; scans: number[]; settled: string[] } {
  const memory = memoryPendingStore(() => Date.now());
  const scans: number[] = [];
  const settled: string[] = [];
  const counted: PendingStore = {
    ...wakingStore(memory, () => undefined),
    takeDue: (now, limit, leaseMs) => {
      scans.push(now);
      return memory.takeDue(now, limit, leaseMs);
    },
  };
  const poller = createPoller({
    store: counted,
    settle: (requestId) => {
      settled.push(requestId);
      return memory.finish(requestId, 's-1', 1_000).then(() => ({ kind: 'busy' }) as const);
    },
    ...TIMING,
  });
  // What this process writes wakes its poller (the tracker wires it the same way).
  const store = wakingStore(memory, (at) => {
    poller.dueAt(at);
  });
  return { store, poller, scans, settled };
}

const scannedAt = (scans: number[]): number[] => scans.map((at) => at - scans[0]!);

describe('vehicle search poller', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 1_000_000 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('with nothing waiting, scans once per idle period instead of once a second', async () => {
    const { poller, scans } = setup();
    poller.start();
    await vi.advanceTimersByTimeAsync(25_000);
    await poller.stop();
    expect(scannedAt(scans)).toEqual([0, 10_000, 20_000]);
  });

  it('sleeps until the earliest search is due and settles it then', async () => {
    const { store, poller, scans, settled } = setup();
    await store.add(pendingSearch(), Date.now() + 3_500);
    poller.start();
    await vi.advanceTimersByTimeAsync(3_400);
    expect(settled).toEqual([]);
    await vi.advanceTimersByTimeAsync(200);
    await poller.stop();
    expect(settled).toEqual(['req-1']);
    expect(scannedAt(scans)).toEqual([0, 3_500]);
  });

  it('is woken early by a search this process records while it sleeps', async () => {
    const { store, poller, settled } = setup();
    poller.start();
    await vi.advanceTimersByTimeAsync(2_000);
    await store.add(pendingSearch(), Date.now() + 500);
    await vi.advanceTimersByTimeAsync(600);
    await poller.stop();
    expect(settled).toEqual(['req-1']);
  });

  it('still waits the interval between scans when a search is due sooner', async () => {
    const { store, poller, scans } = setup();
    poller.start();
    await vi.advanceTimersByTimeAsync(100);
    await store.add(pendingSearch(), Date.now());
    await vi.advanceTimersByTimeAsync(2_000);
    await poller.stop();
    expect(scannedAt(scans).slice(0, 2)).toEqual([0, 1_000]);
  });

  it('keeps a wake asked for during a scan', async () => {
    const memory = memoryPendingStore(() => Date.now());
    const store = wakingStore(memory, (at) => {
      poller.dueAt(at);
    });
    const settled: string[] = [];
    const poller = createPoller({
      store: memory,
      // The first poll reschedules the search 1.5 s later, as a pending answer would.
      settle: async (requestId) => {
        settled.push(requestId);
        await store.reschedule(pendingSearch({ polls: 1 }), Date.now() + 1_500);
        return { kind: 'busy' };
      },
      ...TIMING,
    });
    // A nextDue read that missed the write must not lose the wake.
    const blind: PendingStore = memory;
    vi.spyOn(blind, 'nextDue').mockResolvedValue(undefined);
    await memory.add(pendingSearch(), Date.now());
    poller.start();
    await vi.advanceTimersByTimeAsync(1_600);
    await poller.stop();
    expect(settled).toEqual(['req-1', 'req-1']);
  });

  it('leaves to the next scan a search whose lease ran out while it waited its turn', async () => {
    const memory = memoryPendingStore(() => Date.now());
    const settled: string[] = [];
    const poller = createPoller({
      store: memory,
      // Each settlement takes 70 s: the second search of the batch would start after its 60 s lease.
      settle: async (requestId) => {
        settled.push(requestId);
        await new Promise((resolve) => setTimeout(resolve, 70_000));
        return { kind: 'pending' } as const;
      },
      ...TIMING,
    });
    for (const requestId of ['req-1', 'req-2']) await memory.add(pendingSearch({ requestId }), Date.now());
    const scanning = poller.scan(new AbortController().signal);
    await vi.advanceTimersByTimeAsync(200_000);
    expect(await scanning).toBe(2);
    expect(settled).toEqual(['req-1']);
  });
});
