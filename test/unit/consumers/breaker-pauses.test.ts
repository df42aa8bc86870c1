import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BreakerPauses } from '../../../src/consumers/breaker-pauses.js';
import { CircuitBreaker } from '../../../src/requests/circuit-breaker.js';
import { PauseControl } from '../../../src/consumers/pause-control.js';
import { OPERATIONS, type Operation } from '../../../src/contract/operations.js';

afterEach(() => {
  vi.useRealTimers();
});

function setup() {
  vi.useFakeTimers();
  const fetching = new Set(['t/0', 't/1']);
  const pauses = new PauseControl({
    pause: (list) => {
      for (const { topic, partitions } of list) for (const p of partitions) fetching.delete(`${topic}/${p}`);
    },
    resume: (list) => {
      for (const { topic, partitions } of list) for (const p of partitions) fetching.add(`${topic}/${p}`);
    },
  });
  const breakers = new Map<Operation, CircuitBreaker>(
    OPERATIONS.map((op) => [op, new CircuitBreaker({ failureThreshold: 1, cooldownMs: 1000 })]),
  );
  const breaker = breakers.get('vehicle') as CircuitBreaker;
  const control = new BreakerPauses({
    pauses,
    breakerFor: (op) => breakers.get(op) as CircuitBreaker,
    topicsOf: (op) => [op === 'vehicle' ? 't' : `other-${op}`],
    partitionsOf: (topic) => (topic === 't' ? [0, 1] : []),
    logger: pino({ level: 'silent' }),
    probeIntervalMs: 500,
  });
  return { fetching, breaker, control };
}

describe('BreakerPauses', () => {
  it('pauses the operation while open and lets one message through once the cool-down ends with nothing in flight', async () => {
    const { fetching, breaker, control } = setup();
    breaker.recordFailure();
    expect(fetching.size).toBe(0);
    expect(control.admit('t', 0)).toBe(false);
    await vi.advanceTimersByTimeAsync(1000 + 50);
    expect(fetching.size).toBe(1);
    const [resumed] = [...fetching];
    const partition = Number(resumed?.split('/')[1]);
    expect(control.admit('t', partition)).toBe(true);
    // The credit is spent: the partition is held again, the next message waits.
    expect(fetching.size).toBe(0);
    expect(control.admit('t', partition)).toBe(false);
    control.stop();
  });

  it('grants nothing while a probe is under way and resumes everything when the breaker closes', async () => {
    const { fetching, breaker, control } = setup();
    breaker.recordFailure();
    await vi.advanceTimersByTimeAsync(1000);
    await breaker.acquire(); // a request in flight takes the probe
    await vi.advanceTimersByTimeAsync(2000);
    expect(fetching.size).toBe(0);
    breaker.recordSuccess();
    expect([...fetching].sort()).toEqual(['t/0', 't/1']);
    expect(control.admit('t', 0)).toBe(true);
    control.stop();
  });

  it('offers the other partition when the first credit found nothing to probe with, and holds all again on reopen', async () => {
    const { fetching, breaker, control } = setup();
    breaker.recordFailure();
    await vi.advanceTimersByTimeAsync(1000 + 50);
    expect(fetching.size).toBe(1);
    await vi.advanceTimersByTimeAsync(500);
    expect([...fetching].sort()).toEqual(['t/0', 't/1']);
    await breaker.acquire();
    breaker.recordFailure(); // the probe failed
    expect(fetching.size).toBe(0);
    expect(control.admit('t', 0)).toBe(false);
    control.stop();
  });
});
