import { afterEach, describe, expect, it, vi } from 'vitest';
import { withStoreRetries } from '../../../src/webhooks/store-retries.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('withStoreRetries', () => {
  it('tries again after waits that double, and answers with the first success', async () => {
    vi.useFakeTimers();
    const triedAt: number[] = [];
    const start = Date.now();
    const write = vi.fn(() => {
      triedAt.push(Date.now() - start);
      return triedAt.length < 3 ? Promise.reject(new Error('redis timeout')) : Promise.resolve('stored');
    });
    const onRetry = vi.fn();
    const result = withStoreRetries(write, { tries: 5, firstDelayMs: 200, onRetry });
    await vi.runAllTimersAsync();
    expect(await result).toBe('stored');
    expect(triedAt).toEqual([0, 200, 600]);
    expect(onRetry.mock.calls.map(([, attempt]) => attempt as number)).toEqual([1, 2]);
  });

  it('throws the last failure once every try failed', async () => {
    vi.useFakeTimers();
    let tries = 0;
    const result = withStoreRetries(() => Promise.reject(new Error(`failure ${String(++tries)}`)), {
      tries: 3,
      firstDelayMs: 10,
    });
    const settled = expect(result).rejects.toThrow('failure 3');
    await vi.runAllTimersAsync();
    await settled;
    expect(tries).toBe(3);
  });

  it('stops trying once its signal aborts, during a wait or before one', async () => {
    const controller = new AbortController();
    const write = vi.fn(() => Promise.reject(new Error('redis down')));
    const result = withStoreRetries(write, { tries: 10, firstDelayMs: 60_000, signal: controller.signal });
    await vi.waitFor(() => {
      expect(write).toHaveBeenCalledTimes(1);
    });
    controller.abort(new Error('shutting down'));
    await expect(result).rejects.toThrow('shutting down');
    expect(write).toHaveBeenCalledTimes(1);

    const aborted = AbortSignal.abort(new Error('gone'));
    await expect(withStoreRetries(write, { tries: 10, firstDelayMs: 1, signal: aborted })).rejects.toThrow(
      'redis down',
    );
    expect(write).toHaveBeenCalledTimes(2);
  });
});
