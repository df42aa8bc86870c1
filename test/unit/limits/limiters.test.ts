import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLimiters, LimiterClosedError, type Limiters } from '../../../src/limits/index.js';
import type { OperationLimitSettings } from '../../../src/limits/index.js';
import { deferred, maxInWindow, settingsWith, silentLogger } from './helpers.js';

const START = new Date('2026-11-21T10:00:00.000Z');
let open: Limiters[] = [];

function limitersFor(vehicle: OperationLimitSettings): Limiters {
  const limiters = createLimiters({
    settings: settingsWith({ vehicle }),
    keyPrefix: 'unit',
    logger: silentLogger,
    now: () => Date.now(),
  });
  open.push(limiters);
  return limiters;
}

beforeEach(() => {
  vi.useFakeTimers({ now: START });
});

afterEach(async () => {
  const closing = Promise.all(open.map((limiters) => limiters.close()));
  await vi.runOnlyPendingTimersAsync();
  await closing;
  open = [];
  vi.useRealTimers();
});

describe('operation limiter, local', () => {
  it('never runs more than maxConcurrent calls at once', async () => {
    const limiter = limitersFor({ ratePerSecond: 1000, maxConcurrent: 3 }).get('vehicle');
    let running = 0;
    let peak = 0;
    const calls = Array.from({ length: 12 }, (_, i) =>
      limiter.schedule(async () => {
        running += 1;
        peak = Math.max(peak, running, limiter.stats.running);
        await new Promise((resolve) => setTimeout(resolve, 20 + (i % 4) * 7));
        running -= 1;
        return i;
      }),
    );
    await vi.advanceTimersByTimeAsync(1000);
    await expect(Promise.all(calls)).resolves.toEqual(Array.from({ length: 12 }, (_, i) => i));
    expect(peak).toBe(3);
    expect(limiter.stats).toMatchObject({ queued: 0, running: 0 });
  });

  it('spaces starts so that no second holds more than the rate', async () => {
    const limiter = limitersFor({ ratePerSecond: 10, maxConcurrent: 50 }).get('vehicle');
    const starts: number[] = [];
    const calls = Array.from({ length: 60 }, () =>
      limiter.schedule(() => {
        starts.push(Date.now());
        return Promise.resolve();
      }),
    );
    await vi.advanceTimersByTimeAsync(4000);
    expect(maxInWindow(starts, 1000)).toBeLessThanOrEqual(11);
    // 10/s less the 2 % safety margin, over 4 s; generous lower bound.
    expect(starts.length).toBeGreaterThanOrEqual(32);
    expect(starts.length).toBeLessThanOrEqual(42);
    await vi.advanceTimersByTimeAsync(4000);
    await Promise.all(calls);
  });

  it('rejects with the original error of fn', async () => {
    const limiter = limitersFor({ ratePerSecond: 100, maxConcurrent: 1 }).get('vehicle');
    const failure = new TypeError('vendor exploded');
    const call = limiter.schedule(() => Promise.reject(failure));
    const outcome = expect(call).rejects.toBe(failure);
    await vi.advanceTimersByTimeAsync(50);
    await outcome;
    expect(limiter.stats.running).toBe(0);
  });

  it('starts no call during a backoff', async () => {
    const limiter = limitersFor({ ratePerSecond: 100, maxConcurrent: 5 }).get('vehicle');
    const starts: number[] = [];
    const record = () => {
      starts.push(Date.now());
      return Promise.resolve();
    };
    await Promise.all([limiter.schedule(record), vi.advanceTimersByTimeAsync(20)]);
    const backoffAt = Date.now();
    limiter.backoff(500);
    const later = [limiter.schedule(record), limiter.schedule(record)];
    await vi.advanceTimersByTimeAsync(450);
    expect(starts).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(200);
    await Promise.all(later);
    expect(starts).toHaveLength(3);
    for (const start of starts.slice(1)) expect(start).toBeGreaterThanOrEqual(backoffAt + 500);
  });

  it('a job aborted while queued for a concurrency slot rejects and takes no quota', async () => {
    const limiter = limitersFor({ ratePerSecond: 100, maxConcurrent: 1, spendCapPerHour: 2 }).get('vehicle');
    const gate = deferred();
    const first = limiter.schedule(() => gate.promise);
    const controller = new AbortController();
    const aborted = limiter.schedule(() => Promise.resolve('never'), { signal: controller.signal });
    await vi.advanceTimersByTimeAsync(20);
    expect(limiter.stats).toMatchObject({ queued: 1, running: 1, started: 1 });
    controller.abort();
    await expect(aborted).rejects.toMatchObject({ name: 'AbortError' });
    expect(limiter.stats.queued).toBe(0);
    const third = limiter.schedule(() => Promise.resolve('third'));
    gate.resolve();
    await vi.advanceTimersByTimeAsync(50);
    await first;
    // The cap is 2: the third call could only start because the aborted one took nothing.
    await expect(third).resolves.toBe('third');
    expect(limiter.stats.started).toBe(2);
  });

  it('a job aborted while waiting for its rate slot gives the slot back', async () => {
    const limiter = limitersFor({ ratePerSecond: 1, maxConcurrent: 5, spendCapPerHour: 2 }).get('vehicle');
    const starts: number[] = [];
    const record = () => {
      starts.push(Date.now() - START.getTime());
      return Promise.resolve();
    };
    const first = limiter.schedule(record);
    const controller = new AbortController();
    const aborted = limiter.schedule(record, { signal: controller.signal });
    const abortedOutcome = expect(aborted).rejects.toMatchObject({ name: 'AbortError' });
    await vi.advanceTimersByTimeAsync(100);
    controller.abort();
    await abortedOutcome;
    const third = limiter.schedule(record);
    await vi.advanceTimersByTimeAsync(1500);
    // The third call takes the aborted call's slot (one spacing after the first), not the next
    // one, and the cap of 2 still lets it start.
    expect(starts).toHaveLength(2);
    expect(starts[1]! - starts[0]!).toBeLessThan(1100);
    expect(limiter.stats.started).toBe(2);
    await Promise.all([first, third]);
  });

  it('rejects at once when the signal is already aborted', async () => {
    const limiter = limitersFor({ ratePerSecond: 1, maxConcurrent: 1 }).get('vehicle');
    const fn = vi.fn(() => Promise.resolve());
    await expect(limiter.schedule(fn, { signal: AbortSignal.abort() })).rejects.toMatchObject({
      name: 'AbortError',
    });
    expect(fn).not.toHaveBeenCalled();
    expect(limiter.stats.queued).toBe(0);
  });

  it('queues calls past the spend cap, fires the event once, resumes in the next hour', async () => {
    vi.setSystemTime(new Date('2026-11-21T10:59:00.000Z'));
    const limiters = limitersFor({ ratePerSecond: 100, maxConcurrent: 5, spendCapPerHour: 3 });
    const events: [string, number][] = [];
    limiters.on('spend-cap', (operation, resumeAt) => events.push([operation, resumeAt]));
    const limiter = limiters.get('vehicle');
    let done = 0;
    const calls = Array.from({ length: 5 }, () =>
      limiter.schedule(() => {
        done += 1;
        return Promise.resolve();
      }),
    );
    await vi.advanceTimersByTimeAsync(5000);
    expect(done).toBe(3);
    expect(limiter.stats).toMatchObject({ queued: 2, started: 3 });
    const nextHour = new Date('2026-11-21T11:00:00.000Z').getTime();
    expect(events).toEqual([['vehicle', nextHour]]);
    await vi.advanceTimersByTimeAsync(60_000);
    await Promise.all(calls);
    expect(done).toBe(5);
    expect(limiter.stats).toMatchObject({ queued: 0, started: 2 });
    expect(events).toHaveLength(1);
  });

  it('close rejects waiting jobs and refuses new ones', async () => {
    const limiters = createLimiters({
      settings: settingsWith({ vehicle: { ratePerSecond: 1, maxConcurrent: 1 } }),
      keyPrefix: 'unit',
      logger: silentLogger,
      now: () => Date.now(),
    });
    const limiter = limiters.get('vehicle');
    const first = limiter.schedule(() => Promise.resolve(1));
    const waiting = limiter.schedule(() => Promise.resolve(2));
    const waitingOutcome = expect(waiting).rejects.toBeInstanceOf(LimiterClosedError);
    await vi.advanceTimersByTimeAsync(100);
    await expect(first).resolves.toBe(1);
    const closing = limiters.close();
    await vi.advanceTimersByTimeAsync(100);
    await closing;
    await waitingOutcome;
    await expect(limiter.schedule(() => Promise.resolve(3))).rejects.toBeInstanceOf(LimiterClosedError);
  });
});
