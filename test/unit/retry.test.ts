import { describe, expect, it, vi } from 'vitest';
import { backoffDelayMs, retry, type Backoff } from '../../src/retry.js';

const failing = (message = 'redis down') => vi.fn(() => Promise.reject(new Error(message)));

/** A clock and a sleep that moves it: waits take no time, and the budget still counts them. */
function fakeClock() {
  let now = 0;
  const waits: number[] = [];
  return {
    waits,
    now: () => now,
    sleep: (ms: number) => {
      waits.push(ms);
      now += ms;
      return Promise.resolve();
    },
  };
}

describe('retry', () => {
  it('answers with the first success after failures', async () => {
    let tries = 0;
    const clock = fakeClock();
    const result = await retry(
      () => (++tries < 3 ? Promise.reject(new Error('timeout')) : Promise.resolve('stored')),
      {
        firstDelayMs: 100,
        maxDelayMs: 1_000,
        jitter: 'none',
        signal: new AbortController().signal,
        ...clock,
      },
    );
    expect(result).toBe('stored');
    expect(clock.waits).toEqual([100, 200]);
  });

  it('ends a wait at once when its signal aborts, with the abort reason', async () => {
    const controller = new AbortController();
    const attempt = failing();
    const onRetry = vi.fn(() => {
      controller.abort(new Error('partition revoked'));
    });
    // A wait of an hour: the test ends only if the abort ends it.
    const result = retry(attempt, {
      firstDelayMs: 3_600_000,
      maxDelayMs: 3_600_000,
      jitter: 'none',
      signal: controller.signal,
      onRetry,
    });
    await expect(result).rejects.toThrow('partition revoked');
    expect(attempt).toHaveBeenCalledTimes(1);
  });

  it('makes the failure at hand final when the signal aborted before a wait', async () => {
    const attempt = failing('redis down');
    const result = retry(attempt, {
      firstDelayMs: 1,
      maxDelayMs: 1,
      jitter: 'none',
      signal: AbortSignal.abort(new Error('shutdown')),
    });
    await expect(result).rejects.toThrow('redis down');
    expect(attempt).toHaveBeenCalledTimes(1);
  });

  it('gives up, with the last failure, when the next wait would end past its time budget', async () => {
    const clock = fakeClock();
    let tries = 0;
    const attempt = () => Promise.reject(new Error(`failure ${String(++tries)}`));
    const result = retry(attempt, {
      firstDelayMs: 100,
      maxDelayMs: 10_000,
      jitter: 'none',
      budgetMs: 1_000,
      signal: new AbortController().signal,
      ...clock,
    });
    // 100 + 200 + 400 fit in the budget; the next 800 would end at 1,500.
    await expect(result).rejects.toThrow('failure 4');
    expect(clock.waits).toEqual([100, 200, 400]);
  });

  it('gives up, with the last failure, after its tries in all', async () => {
    const clock = fakeClock();
    let tries = 0;
    const attempt = () => Promise.reject(new Error(`failure ${String(++tries)}`));
    const result = retry(attempt, {
      firstDelayMs: 1,
      maxDelayMs: 1,
      jitter: 'full',
      maxAttempts: 3,
      signal: new AbortController().signal,
      ...clock,
    });
    await expect(result).rejects.toThrow('failure 3');
    expect(clock.waits).toHaveLength(2);
  });

  it('throws a failure that is not retryable at once', async () => {
    const attempt = vi.fn(() => Promise.reject(new TypeError('a bug')));
    const result = retry(attempt, {
      firstDelayMs: 1,
      maxDelayMs: 1,
      jitter: 'none',
      retryable: (error) => !(error instanceof TypeError),
    });
    await expect(result).rejects.toThrow('a bug');
    expect(attempt).toHaveBeenCalledTimes(1);
  });
});

describe('backoffDelayMs', () => {
  const backoff = (jitter: Backoff['jitter']): Backoff => ({ firstDelayMs: 100, maxDelayMs: 5_000, jitter });
  /** The ceiling of the wait after the nth failure: doubling from 100 ms, capped at 5 s. */
  const ceiling = (failures: number) => Math.min(5_000, 100 * 2 ** (failures - 1));

  it('keeps full jitter between 0 and the ceiling, and equal jitter between half of it and all of it', () => {
    for (let failures = 1; failures <= 12; failures += 1) {
      for (const random of [() => 0, () => 0.5, () => 0.999_999, Math.random]) {
        const full = backoffDelayMs(backoff('full'), failures, random);
        const equal = backoffDelayMs(backoff('equal'), failures, random);
        expect(full).toBeGreaterThanOrEqual(0);
        expect(full).toBeLessThanOrEqual(ceiling(failures));
        expect(equal).toBeGreaterThanOrEqual(ceiling(failures) / 2);
        expect(equal).toBeLessThanOrEqual(ceiling(failures));
      }
      expect(backoffDelayMs(backoff('none'), failures)).toBe(ceiling(failures));
    }
  });

  it('spreads the waits of callers that failed together', () => {
    const waits = new Set(Array.from({ length: 50 }, () => backoffDelayMs(backoff('full'), 6)));
    expect(waits.size).toBeGreaterThan(10);
  });

  it('keeps a steady pace with a factor of 1', () => {
    const poll: Backoff = { firstDelayMs: 100, maxDelayMs: 100, factor: 1, jitter: 'none' };
    expect([1, 2, 10].map((failures) => backoffDelayMs(poll, failures))).toEqual([100, 100, 100]);
  });
});
