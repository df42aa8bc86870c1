import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../../src/observability/metrics.js';

/** The smallest finite bucket an observation landed in, from the exposition text. */
function bucketOf(text: string, metric: string, labels: string): string | undefined {
  const pattern = new RegExp(`^${metric}_bucket\\{le="([^"]+)",${labels}\\} 1$`, 'gm');
  const hits = [...text.matchAll(pattern)].map((m) => m[1]).filter((le) => le !== '+Inf');
  return hits[0];
}

describe('histograms reach the ranges they measure', () => {
  it('a vendor call that ran into the 30 s timeout, and a request held an hour by a spent cap', async () => {
    const metrics = createMetrics();
    metrics.vendorCall('vehicle', 'timeout', 30.2);
    metrics.endToEnd('vehicle', 3_000);
    const text = await metrics.registry.metrics();
    expect(bucketOf(text, 'verification_vendor_call_seconds', 'operation="vehicle",outcome="timeout"')).toBe(
      '45',
    );
    expect(bucketOf(text, 'verification_end_to_end_seconds', 'operation="vehicle"')).toBe('3600');
  });
});
