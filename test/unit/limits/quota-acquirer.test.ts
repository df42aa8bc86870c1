import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { QuotaAcquirer } from '../../../src/limits/quota-acquirer.js';
import type { QuotaStore } from '../../../src/limits/quota-store.js';
import { createSleeper } from '../../../src/limits/sleeper.js';
import { deferred, silentLogger } from './helpers.js';

describe('the calls a replica reports for the current hour', () => {
  it("are the store's count while the spend cap holds, even for a replica that started none", async () => {
    const now = Date.UTC(2026, 10, 21, 10, 30);
    // Another replica spent the hour's cap of 3; this one just started.
    const store: QuotaStore = {
      reserve: () =>
        Promise.resolve({ kind: 'spend-cap', waitMs: 60_000, resumeAt: now + 60_000, started: 3 }),
      release: () => Promise.resolve(),
      backoff: () => Promise.resolve(),
      backoffRemaining: () => Promise.resolve(0),
    };
    const quota = new QuotaAcquirer({
      operation: 'vehicle',
      store,
      shared: true,
      logger: silentLogger,
      now: () => now,
      sleeper: createSleeper(() => now),
      lateToleranceMs: 50,
      onSpendCap: () => undefined,
    });
    const waiting = new AbortController();
    const acquired = quota.acquire(waiting.signal).catch(() => 'aborted');
    await vi.waitFor(() => {
      expect(quota.startedThisHour()).toBe(3);
    });
    waiting.abort();
    expect(await acquired).toBe('aborted');
    quota.close();
  });
});

describe('lent slots', () => {
  /** A store that hands out a slot every 10 ms from `first`, and logs what is given back. */
  function pacedStore(first: number, released: string[]): QuotaStore {
    let next = first;
    return {
      reserve: () => {
        const slot = next;
        next += 10;
        const token = { slot: String(slot), tat: String(next), window: 0 };
        return Promise.resolve({
          kind: 'slot',
          waitMs: slot - Date.now(),
          dueAt: slot,
          token,
          started: undefined,
        });
      },
      release: (token) => {
        released.push(token.slot);
        return Promise.resolve();
      },
      backoff: () => Promise.resolve(),
      backoffRemaining: () => Promise.resolve(0),
    };
  }

  let current: QuotaAcquirer | undefined;
  let released: string[] = [];

  /** An acquirer on pacedStore, its first slot 100 ms after the fake clock's start. */
  function acquirer(): QuotaAcquirer {
    released = [];
    current = new QuotaAcquirer({
      operation: 'vehicle',
      store: pacedStore(1_000_100, released),
      shared: false,
      logger: silentLogger,
      now: () => Date.now(),
      sleeper: createSleeper(() => Date.now()),
      lateToleranceMs: 2,
      onSpendCap: () => undefined,
    });
    return current;
  }

  beforeEach(() => {
    vi.useFakeTimers({ now: 1_000_000 });
  });

  afterEach(() => {
    current?.close();
    current = undefined;
    vi.useRealTimers();
  });

  it('gives a lending call a new slot once a taking call took its own, and each slot is used once', async () => {
    const quota = acquirer();
    const bulk = quota.acquire(undefined, { slots: 'lend' });
    await vi.advanceTimersByTimeAsync(10);
    const interactive = quota.acquire(undefined, { slots: 'take' });
    await vi.advanceTimersByTimeAsync(200);
    // The interactive call started on the bulk call's slot (1_000_100); the bulk call on the next.
    expect((await interactive).due).toBe(1_000_100);
    expect((await bulk).due).toBe(1_000_110);
    expect(released).toEqual([]);
  });

  it('does not give back a slot taken from a lending call that is aborted at the same time', async () => {
    const quota = acquirer();
    const abort = new AbortController();
    const bulk = quota.acquire(abort.signal, { slots: 'lend' }).catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(10);
    // The abort ends the bulk call's sleep first; its slot is taken before that call goes on.
    abort.abort();
    const interactive = quota.acquire(undefined, { slots: 'take' });
    await vi.advanceTimersByTimeAsync(200);
    expect((await interactive).due).toBe(1_000_100);
    expect(await bulk).toBeInstanceOf(Error);
    // The slot is the interactive call's: nothing was released for it.
    expect(released).not.toContain('1000100');
  });

  it('takes a lent slot only once its beforeStart is done, so a slow claim loses no slot', async () => {
    const quota = acquirer();
    const bulk = [0, 1, 2].map(() => quota.acquire(undefined, { slots: 'lend' }));
    await vi.advanceTimersByTimeAsync(10);
    const claim = deferred();
    const interactive = quota.acquire(undefined, {
      slots: 'take',
      beforeStart: { begin: () => undefined, done: claim.promise },
    });
    await vi.advanceTimersByTimeAsync(95);
    claim.resolve();
    await vi.advanceTimersByTimeAsync(100);
    // Claimed at 1_000_105: the slot due at 1_000_100 had started its bulk call; 1_000_110 was next.
    expect((await interactive).due).toBe(1_000_110);
    // The bulk call it displaced asked again and got the next free slot.
    const bulkDue = (await Promise.all(bulk)).map((slot) => slot.due).sort((a, b) => a - b);
    expect(bulkDue).toEqual([1_000_100, 1_000_120, 1_000_130]);
    expect(released).toEqual([]);
    expect(quota.lateSlots).toBe(0);
  });

  it('lends nothing for a call that does not lend', async () => {
    const quota = acquirer();
    const bulk = quota.acquire(undefined);
    await vi.advanceTimersByTimeAsync(10);
    const interactive = quota.acquire(undefined, { slots: 'take' });
    await vi.advanceTimersByTimeAsync(200);
    expect((await bulk).due).toBe(1_000_100);
    expect((await interactive).due).toBe(1_000_110);
  });
});
