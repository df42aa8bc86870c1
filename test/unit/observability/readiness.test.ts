import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { checkTimeoutMs, dependencyChecks, Readiness } from '../../../src/observability/readiness.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('Readiness', () => {
  it('turns not ready when a dependency fails or hangs past the time limit, and ready when it answers again', async () => {
    vi.useFakeTimers();
    let registry: 'up' | 'down' | 'hang' = 'up';
    const readiness = new Readiness(
      [
        { name: 'kafka', check: () => Promise.resolve() },
        {
          name: 'schema-registry',
          check: () =>
            registry === 'up'
              ? Promise.resolve()
              : registry === 'down'
                ? Promise.reject(new Error('refused'))
                : new Promise(() => undefined),
        },
      ],
      { intervalMs: 100, timeoutMs: 50 },
      pino({ level: 'silent' }),
    );
    readiness.start();
    expect(readiness.isReady()).toBe(true);
    registry = 'down';
    await vi.advanceTimersByTimeAsync(100);
    expect(readiness.isReady()).toBe(false);
    expect(readiness.failing()).toEqual(['schema-registry']);
    registry = 'up';
    await vi.advanceTimersByTimeAsync(100);
    expect(readiness.isReady()).toBe(true);
    registry = 'hang';
    await vi.advanceTimersByTimeAsync(100 + 50);
    expect(readiness.isReady()).toBe(false);
    readiness.stop();
  });

  it('bounds each check within 1 to 3 s', () => {
    expect(checkTimeoutMs(200)).toBe(1_000);
    expect(checkTimeoutMs(2_000)).toBe(2_000);
    expect(checkTimeoutMs(60_000)).toBe(3_000);
  });
});

describe('dependencyChecks', () => {
  it('checks the broker with the metadata of one topic, never of the whole cluster', async () => {
    const asked: string[] = [];
    const metadata = {
      partitionsOf: (topic: string) => {
        asked.push(topic);
        return Promise.resolve([0, 1]);
      },
    };
    const [kafka] = dependencyChecks({ metadata, topic: 'p.errors' });
    await kafka?.check();
    expect(kafka?.name).toBe('kafka');
    expect(asked).toEqual(['p.errors']);
  });
});
