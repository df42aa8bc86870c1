import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../../src/observability/metrics.js';

async function pending(metrics: ReturnType<typeof createMetrics>): Promise<number | undefined> {
  const metric = await metrics.registry.getSingleMetric('verification_vehicle_searches_pending')?.get();
  return metric?.values[0]?.value;
}

describe('a scrape while Redis is away', () => {
  it('still answers, keeping the last count of pending searches when the read fails', async () => {
    const metrics = createMetrics();
    const redis = { up: true };
    metrics.attach({
      pendingSearches: () =>
        redis.up ? Promise.resolve(4) : Promise.reject(new Error('connection refused')),
    });
    expect(await pending(metrics)).toBe(4);
    redis.up = false;
    const text = await metrics.registry.metrics();
    expect(text).toContain('verification_vehicle_searches_pending 4');
    expect(text).toContain('verification_breaker_state');
  });

  it('does not wait on a read that hangs', async () => {
    const metrics = createMetrics();
    metrics.attach({ pendingSearches: () => new Promise<number>(() => undefined) });
    // Before, the scrape never answered (the test's own time limit ended it).
    await expect(metrics.registry.metrics()).resolves.toContain('verification_vehicle_searches_pending');
  });
});
