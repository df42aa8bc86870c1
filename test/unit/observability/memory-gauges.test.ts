import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../../src/observability/metrics.js';

async function arrayBuffersBytes(): Promise<number> {
  const metric = await createMetrics().registry.getSingleMetric('nodejs_array_buffers_bytes')?.get();
  return metric?.values[0]?.value ?? Number.NaN;
}

describe('the memory gauges', () => {
  it('report the Buffers held outside the JS heap, read at scrape time', async () => {
    const held = Buffer.alloc(16 * 1024 * 1024, 1);
    const withBuffer = await arrayBuffersBytes();
    expect(withBuffer).toBeGreaterThanOrEqual(held.byteLength);
    expect(withBuffer).toBeLessThanOrEqual(process.memoryUsage().arrayBuffers + held.byteLength);
  });
});
