import { afterEach, describe, expect, it, vi } from 'vitest';
import { CircuitBreaker } from '../../../src/requests/circuit-breaker.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('CircuitBreaker', () => {
  it('opens after the threshold of consecutive failures and emits open once', () => {
    const breaker = new CircuitBreaker({ failureThreshold: 3, cooldownMs: 1000 });
    const opened = vi.fn();
    breaker.on('open', opened);
    breaker.recordFailure();
    breaker.recordFailure();
    breaker.recordSuccess();
    breaker.recordFailure();
    breaker.recordFailure();
    expect(breaker.state).toBe('closed');
    breaker.recordFailure();
    breaker.recordFailure();
    expect(breaker.state).toBe('open');
    expect(opened).toHaveBeenCalledTimes(1);
    breaker.close();
  });

  it('lets one probe through after the cool-down and closes on its success', async () => {
    vi.useFakeTimers();
    const breaker = new CircuitBreaker({ failureThreshold: 1, cooldownMs: 1000 });
    const closed = vi.fn();
    breaker.on('close', closed);
    breaker.recordFailure();
    const admitted: string[] = [];
    void breaker.acquire().then((probe) => admitted.push(probe ? 'probe' : 'not the probe'));
    void breaker.acquire().then((probe) => admitted.push(probe ? 'probe' : 'not the probe'));
    await vi.advanceTimersByTimeAsync(999);
    expect(admitted).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(admitted).toEqual(['probe']);
    breaker.recordSuccess();
    await vi.advanceTimersByTimeAsync(0);
    expect(admitted).toEqual(['probe', 'not the probe']);
    expect(closed).toHaveBeenCalledTimes(1);
    expect(breaker.state).toBe('closed');
  });

  it('opens again when the probe fails', async () => {
    vi.useFakeTimers();
    const breaker = new CircuitBreaker({ failureThreshold: 1, cooldownMs: 500 });
    breaker.recordFailure();
    await vi.advanceTimersByTimeAsync(500);
    await breaker.acquire();
    breaker.recordFailure();
    expect(breaker.state).toBe('open');
    breaker.close();
  });

  it('rejects a waiting caller when its signal aborts', async () => {
    const breaker = new CircuitBreaker({ failureThreshold: 1, cooldownMs: 60_000 });
    breaker.recordFailure();
    const controller = new AbortController();
    const waiting = breaker.acquire(controller.signal);
    controller.abort(new Error('stop'));
    await expect(waiting).rejects.toThrow('stop');
    breaker.close();
  });
});
