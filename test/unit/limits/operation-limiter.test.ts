import Bottleneck from 'bottleneck';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { QuotaUnavailableError } from '../../../src/limits/errors.js';
import {
  createOperationLimiter,
  type ManagedOperationLimiter,
} from '../../../src/limits/operation-limiter.js';
import type { Admission, QuotaStore } from '../../../src/limits/quota-store.js';
import type { Slot } from '../../../src/limits/types.js';
import { silentLogger } from './helpers.js';

/** A store that answers reserve() from a script and records what the limiter did. */
function scriptedStore(answers: Admission[], backoffLeft: number[] = [], onReserve = () => undefined) {
  const released: string[] = [];
  const reserve = vi.fn<QuotaStore['reserve']>(() => {
    onReserve();
    const next = answers.shift();
    return next ? Promise.resolve(next) : Promise.reject(new Error('redis down'));
  });
  const release = vi.fn<QuotaStore['release']>((token) => {
    released.push(token.slot);
    return Promise.resolve();
  });
  const backoff = vi.fn<QuotaStore['backoff']>(() => Promise.resolve());
  const backoffRemaining = vi.fn<QuotaStore['backoffRemaining']>(() =>
    Promise.resolve(backoffLeft.shift() ?? 0),
  );
  const store: QuotaStore = { reserve, release, backoff, backoffRemaining };
  return { store, released, reserve, backoff, backoffRemaining };
}

const slot = (waitMs: number, id: string): Admission => ({
  kind: 'slot',
  waitMs,
  token: { slot: id, tat: id, window: 0 },
  started: undefined,
});

let lag = 0;
let limiter: ManagedOperationLimiter | undefined;

function limiterWith(store: QuotaStore, shared = true, maxConcurrent = 4): ManagedOperationLimiter {
  limiter = createOperationLimiter({
    operation: 'vehicle',
    settings: { ratePerSecond: 10, maxConcurrent },
    store,
    shared,
    logger: silentLogger,
    now: () => Date.now() + lag,
    lateToleranceMs: 10,
    onSpendCap: () => undefined,
  });
  return limiter;
}

beforeEach(() => {
  lag = 0;
  vi.useFakeTimers({ now: new Date('2026-11-21T10:00:00.000Z') });
});

afterEach(async () => {
  const closing = limiter?.close();
  await vi.runOnlyPendingTimersAsync();
  await closing;
  limiter = undefined;
  vi.useRealTimers();
});

describe('operation limiter and its quota store', () => {
  it('hands calls made in one turn to bottleneck in groups, within maxConcurrent', async () => {
    const submit = vi.spyOn(Bottleneck.prototype, 'schedule');
    const answers = Array.from({ length: 100 }, (_, i) => slot(0, `s${String(i)}`));
    const { store } = scriptedStore(answers);
    const scheduler = limiterWith(store, false, 16); // groups of 16 / 8 = 2 calls
    let running = 0;
    let most = 0;
    const call = async (): Promise<void> => {
      running += 1;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, 10));
      running -= 1;
    };
    const calls = Array.from({ length: 40 }, () => scheduler.schedule(call));
    await vi.advanceTimersByTimeAsync(100);
    await Promise.all(calls);
    // 20 bottleneck jobs of weight 2 for 40 calls: its per-job cost paid once a group.
    expect(submit.mock.calls.filter((args) => typeof args[0] === 'object')).toHaveLength(20);
    expect(most).toBe(16);
    submit.mockRestore();
  });

  it('a call that wakes later than the tolerance gives its slot back and takes a new one', async () => {
    const { store, released, reserve } = scriptedStore([slot(30, 'a'), slot(0, 'b')]);
    const fn = vi.fn(() => Promise.resolve('ok'));
    const call = limiterWith(store, false).schedule(fn);
    await vi.advanceTimersByTimeAsync(5);
    lag = 40; // the event loop stalled while the call slept
    await vi.advanceTimersByTimeAsync(60);
    await expect(call).resolves.toBe('ok');
    expect(released).toEqual(['a']);
    expect(reserve).toHaveBeenCalledTimes(2);
    expect(fn).toHaveBeenCalledTimes(1);
  });

  it('starts anyway after three late wake-ups, so a lagging loop cannot starve a call', async () => {
    const answers = ['a', 'b', 'c', 'd', 'e'].map((tat) => slot(20, tat));
    // The event loop stalls 30 ms during every sleep, so every wake-up is 30 ms past its slot.
    const { store, released, reserve } = scriptedStore(answers, [], () => {
      setTimeout(() => {
        lag += 30;
      }, 1);
    });
    const call = limiterWith(store, false).schedule(() => Promise.resolve('ok'));
    await vi.advanceTimersByTimeAsync(200);
    await expect(call).resolves.toBe('ok');
    expect(released).toEqual(['a', 'b', 'c']);
    expect(reserve).toHaveBeenCalledTimes(4);
  });

  it('does not count a slow answer from the store as a late start', async () => {
    // Redis answers 30 ms after being asked: a round trip, not a lagging event loop.
    const { store, released, reserve } = scriptedStore([slot(0, 'a'), slot(0, 'b')], [], () => {
      lag += 30;
    });
    const call = limiterWith(store, false).schedule(() => Promise.resolve('ok'));
    await vi.advanceTimersByTimeAsync(10);
    await expect(call).resolves.toBe('ok');
    expect(released).toEqual([]);
    expect(reserve).toHaveBeenCalledTimes(1);
  });

  it('refreshes the shared backoff while a call sleeps, and the call waits it out', async () => {
    // The first background read (20 ms in) finds a 300 ms backoff set by another replica.
    const { store, released } = scriptedStore([slot(100, 'a'), slot(0, 'b')], [300]);
    const fn = vi.fn(() => Promise.resolve());
    const call = limiterWith(store).schedule(fn);
    await vi.advanceTimersByTimeAsync(150);
    expect(fn).not.toHaveBeenCalled();
    expect(released).toEqual(['a']);
    await vi.advanceTimersByTimeAsync(160);
    expect(fn).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(20);
    await call;
    expect(fn).toHaveBeenCalledTimes(1);
  });

  it('skips the background backoff read while reservations keep answering that none runs', async () => {
    // Call A sleeps 200 ms; a new call reserves every 15 ms, and each granted slot means no
    // backoff ran on the store: reading it again every 20 ms would only repeat that.
    const answers = [slot(200, 'a'), ...['b', 'c', 'd', 'e', 'f', 'g'].map((tat) => slot(0, tat))];
    const { store, backoffRemaining } = scriptedStore(answers);
    const scheduler = limiterWith(store, true, 8);
    const calls = [scheduler.schedule(() => Promise.resolve())];
    for (let i = 0; i < 6; i += 1) {
      await vi.advanceTimersByTimeAsync(15);
      calls.push(scheduler.schedule(() => Promise.resolve()));
    }
    await vi.advanceTimersByTimeAsync(15);
    expect(backoffRemaining).not.toHaveBeenCalled();
    // The reservations stopped (last at 90 ms) while A still sleeps: the reads start again.
    await vi.advanceTimersByTimeAsync(20);
    expect(backoffRemaining).toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(100);
    await Promise.all(calls);
  });

  it('keeps refreshing the backoff for a sleeping call when another call starts at once', async () => {
    // Call A sleeps 100 ms; call B's slot is free at once. The first read (20 ms in) finds a
    // backoff, which A must see on waking; B, never asleep, must not stop the reads for A.
    const { store, released } = scriptedStore([slot(100, 'a'), slot(0, 'b'), slot(0, 'c')], [300]);
    const first = vi.fn(() => Promise.resolve());
    const second = vi.fn(() => Promise.resolve());
    const scheduler = limiterWith(store);
    const calls = [scheduler.schedule(first), scheduler.schedule(second)];
    await vi.advanceTimersByTimeAsync(150);
    expect(second).toHaveBeenCalledTimes(1);
    expect(first).not.toHaveBeenCalled();
    expect(released).toEqual(['a']);
    await vi.advanceTimersByTimeAsync(200);
    await Promise.all(calls);
    expect(first).toHaveBeenCalledTimes(1);
  });

  it('counts lateness from the slot on this clock, including time the answer sat unread', async () => {
    // The store put the slot 12 ms ahead, and it began 15 ms before the answer was read (the
    // event loop was busy): waking "on time" by the answer's wait would be 27 ms late for it.
    const late: Admission = {
      kind: 'slot',
      waitMs: 12,
      dueAt: Date.now() - 15,
      token: { slot: 'a', tat: 'a', window: 0 },
      started: undefined,
    };
    const { store, released, reserve } = scriptedStore([late, slot(0, 'b')]);
    const fn = vi.fn(() => Promise.resolve('ok'));
    const call = limiterWith(store, false).schedule(fn);
    await vi.advanceTimersByTimeAsync(10);
    await expect(call).resolves.toBe('ok');
    expect(released).toEqual(['a']);
    expect(reserve).toHaveBeenCalledTimes(2);
  });

  it('rejects with a retryable QuotaUnavailableError when the store fails, without calling fn', async () => {
    const { store } = scriptedStore([]);
    const fn = vi.fn(() => Promise.resolve());
    const call = limiterWith(store).schedule(fn);
    const outcome = expect(call).rejects.toSatisfy(
      (error) => error instanceof QuotaUnavailableError && error.retryable,
    );
    await vi.advanceTimersByTimeAsync(20);
    await outcome;
    expect(fn).not.toHaveBeenCalled();
    expect(limiter?.stats.queued).toBe(0);
  });

  it('starts fn only once beforeStart is done, after its slot', async () => {
    const { store, released } = scriptedStore([slot(0, 'a')]);
    const fn = vi.fn(() => Promise.resolve('ok'));
    let go: () => void = () => undefined;
    const ready = new Promise<void>((resolve) => (go = resolve));
    const call = limiterWith(store, false).schedule(fn, {
      beforeStart: { begin: () => undefined, done: ready },
    });
    await vi.advanceTimersByTimeAsync(5);
    expect(fn).not.toHaveBeenCalled();
    go();
    await vi.advanceTimersByTimeAsync(1);
    await expect(call).resolves.toBe('ok');
    expect(fn).toHaveBeenCalledTimes(1);
    expect(released).toEqual([]);
  });

  it('sets beforeStart going just as it asks the store for the slot, in the same tick', async () => {
    const order: string[] = [];
    // Cleared by the first microtask after begin: still true while the same tick runs.
    let sameTick = false;
    const { store } = scriptedStore([slot(0, 'a')], [], () => {
      order.push(sameTick ? 'reserve in the same tick' : 'reserve');
    });
    const begin = vi.fn(() => {
      order.push('begin');
      sameTick = true;
      queueMicrotask(() => (sameTick = false));
    });
    const call = limiterWith(store, false).schedule(() => Promise.resolve('ok'), {
      beforeStart: { begin, done: Promise.resolve() },
    });
    await vi.advanceTimersByTimeAsync(5);
    await expect(call).resolves.toBe('ok');
    expect(order).toEqual(['begin', 'reserve in the same tick']);
  });

  it('a beforeStart that fails ends the wait with its reason and gives the slot back, without calling fn', async () => {
    const { store, released } = scriptedStore([slot(20, 'a')]);
    const fn = vi.fn(() => Promise.resolve('ok'));
    let refuse: (error: Error) => void = () => undefined;
    const ready = new Promise<void>((_resolve, reject) => (refuse = reject));
    const call = limiterWith(store, false).schedule(fn, {
      beforeStart: { begin: () => undefined, done: ready },
    });
    const outcome = expect(call).rejects.toThrow('not reserved');
    await vi.advanceTimersByTimeAsync(5);
    refuse(new Error('not reserved'));
    await outcome;
    expect(limiter?.stats.queued).toBe(0);
    await vi.advanceTimersByTimeAsync(30);
    expect(released).toEqual(['a']);
    expect(fn).not.toHaveBeenCalled();
  });

  it('a beforeStart already failed never touches the quota', async () => {
    const { store, reserve } = scriptedStore([slot(0, 'a')]);
    const fn = vi.fn(() => Promise.resolve('ok'));
    const ready = Promise.reject(new Error('not reserved'));
    const call = limiterWith(store, false).schedule(fn, {
      beforeStart: { begin: () => undefined, done: ready },
    });
    await expect(call).rejects.toThrow('not reserved');
    await vi.advanceTimersByTimeAsync(10);
    expect(reserve).not.toHaveBeenCalled();
    expect(fn).not.toHaveBeenCalled();
  });

  it('a beforeStart done later than the tolerance takes a new slot, as a late wake-up does', async () => {
    const { store, released, reserve } = scriptedStore([slot(20, 'a'), slot(0, 'b')]);
    const fn = vi.fn(() => Promise.resolve('ok'));
    const ready = new Promise<void>((resolve) => setTimeout(resolve, 45));
    const call = limiterWith(store, false).schedule(fn, {
      beforeStart: { begin: () => undefined, done: ready },
    });
    await vi.advanceTimersByTimeAsync(50);
    await expect(call).resolves.toBe('ok');
    expect(released).toEqual(['a']);
    expect(reserve).toHaveBeenCalledTimes(2);
    expect(fn).toHaveBeenCalledTimes(1);
  });

  describe('Slot.confirm, as the request leaves', () => {
    /** fn as the transport runs it: some work (the event loop busy), then confirm, then the send. */
    function sender(busyMs: number[]) {
      const sent: string[] = [];
      const fn = vi.fn(async ({ confirm }: Slot) => {
        await new Promise((resolve) => setTimeout(resolve, 1));
        lag += busyMs.shift() ?? 0;
        confirm();
        sent.push(`sent at lag ${String(lag)}`);
        return 'ok';
      });
      return { fn, sent };
    }

    it('a request about to leave past the tolerance is not sent: the slot goes back and fn runs on a new one', async () => {
      const { store, released, reserve } = scriptedStore([slot(20, 'a'), slot(20, 'b')]);
      const { fn, sent } = sender([25, 0]);
      const call = limiterWith(store, false).schedule(fn);
      await vi.advanceTimersByTimeAsync(50);
      await expect(call).resolves.toBe('ok');
      expect(released).toEqual(['a']);
      expect(reserve).toHaveBeenCalledTimes(2);
      expect(fn).toHaveBeenCalledTimes(2);
      expect(fn.mock.calls.map(([slot]) => slot.renewals)).toEqual([0, 1]);
      expect(sent).toEqual(['sent at lag 25']);
      expect(limiter?.stats).toMatchObject({ queued: 0, running: 0, lateSlots: 1, started: 1 });
    });

    it.each([
      {
        case: 'a slot the store gave at once is not checked: the quota held nothing back, so the late request leaves on it',
        waitMs: 0,
        busyMs: 25,
      },
      { case: 'a paced slot whose request is within the tolerance leaves on it', waitMs: 20, busyMs: 8 },
    ])('$case', async ({ waitMs, busyMs }) => {
      const { store, released, reserve } = scriptedStore([slot(waitMs, 'a'), slot(0, 'b')]);
      const { fn, sent } = sender([busyMs]);
      const call = limiterWith(store, false).schedule(fn);
      await vi.advanceTimersByTimeAsync(waitMs + 10);
      await expect(call).resolves.toBe('ok');
      expect(released).toEqual([]);
      expect(reserve).toHaveBeenCalledTimes(1);
      expect(sent).toEqual([`sent at lag ${String(busyMs)}`]);
      expect(limiter?.stats.lateSlots).toBe(0);
    });

    it('late wake-ups and late sends share the bound of three new slots, then the request leaves anyway', async () => {
      const answers = ['a', 'b', 'c', 'd', 'e'].map((tat) => slot(20, tat));
      const { store, released, reserve } = scriptedStore(answers);
      const { fn, sent } = sender([30, 30, 30, 30]);
      const call = limiterWith(store, false).schedule(fn);
      await vi.advanceTimersByTimeAsync(200);
      await expect(call).resolves.toBe('ok');
      expect(released).toEqual(['a', 'b', 'c']);
      expect(reserve).toHaveBeenCalledTimes(4);
      expect(fn).toHaveBeenCalledTimes(4);
      expect(sent).toHaveLength(1);
      expect(limiter?.stats.lateSlots).toBe(3);
    });

    it('a backoff that began while the request was being built stops it until the backoff ends', async () => {
      const { store, released, reserve } = scriptedStore([slot(0, 'a'), slot(0, 'b')]);
      const scheduler = limiterWith(store, false);
      let backedOff = false;
      const fn = vi.fn(async ({ confirm }: Slot) => {
        await new Promise((resolve) => setTimeout(resolve, 1));
        if (!backedOff) {
          backedOff = true;
          scheduler.backoff(50); // another call's 429 arrived meanwhile
        }
        confirm();
        return Date.now();
      });
      const startedAt = Date.now();
      const call = scheduler.schedule(fn);
      await vi.advanceTimersByTimeAsync(100);
      const sentAt = await call;
      expect(sentAt - startedAt).toBeGreaterThanOrEqual(50);
      expect(released).toEqual(['a']);
      expect(reserve).toHaveBeenCalledTimes(2);
      // Given back for the backoff, not for lateness.
      expect(limiter?.stats.lateSlots).toBe(0);
    });

    it("any other failure of fn is the call's, without a new slot", async () => {
      const { store, released, reserve } = scriptedStore([slot(0, 'a'), slot(0, 'b')]);
      const fn = vi.fn(({ confirm }: Slot) => {
        confirm();
        return Promise.reject(new Error('vendor said no'));
      });
      const call = limiterWith(store, false).schedule(fn);
      const settled = expect(call).rejects.toThrow('vendor said no');
      await vi.advanceTimersByTimeAsync(10);
      await settled;
      expect(released).toEqual([]);
      expect(reserve).toHaveBeenCalledTimes(1);
      expect(fn).toHaveBeenCalledTimes(1);
    });

    it('a confirm that passed does not refuse later (undici may start a request again on a new socket)', async () => {
      const { store } = scriptedStore([slot(0, 'a')]);
      const call = limiterWith(store, false).schedule(({ confirm }: Slot) => {
        confirm();
        lag += 100;
        confirm();
        return Promise.resolve('ok');
      });
      await vi.advanceTimersByTimeAsync(10);
      await expect(call).resolves.toBe('ok');
    });

    it('an abort while the call waits for its new slot ends it with an AbortError, nothing sent', async () => {
      const { store, released } = scriptedStore([slot(20, 'a'), slot(500, 'b')]);
      const controller = new AbortController();
      const { fn, sent } = sender([25]);
      const call = limiterWith(store, false).schedule(fn, { signal: controller.signal });
      const settled = expect(call).rejects.toMatchObject({ name: 'AbortError' });
      await vi.advanceTimersByTimeAsync(40);
      controller.abort();
      await vi.advanceTimersByTimeAsync(10);
      await settled;
      expect(sent).toEqual([]);
      expect(released).toEqual(['a', 'b']);
    });
  });

  it('shares a backoff through the store', () => {
    const { store, backoff } = scriptedStore([]);
    limiterWith(store).backoff(1500);
    expect(backoff).toHaveBeenCalledWith(1500);
  });
});
