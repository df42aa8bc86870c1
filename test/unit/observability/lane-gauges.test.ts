import { describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../../src/contract/operations.js';
import { createMetrics, type MetricSources } from '../../../src/observability/metrics.js';

type Limiters = NonNullable<MetricSources['limiters']>;

async function value(
  metrics: ReturnType<typeof createMetrics>,
  name: string,
  labels: Record<string, string>,
): Promise<number | undefined> {
  const metric = await metrics.registry.getSingleMetric(name)?.get();
  return metric?.values.find((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l))?.value;
}

describe('lane metrics', () => {
  it("show each lane's calls started, queue and oldest wait, labelled by operation and lane only", async () => {
    const metrics = createMetrics();
    const limiters = Object.fromEntries(
      OPERATIONS.map((op) => [
        op,
        {
          stats: {
            started: 0,
            lateSlots: 0,
            lanes: {
              interactive: { queued: op === 'vehicle' ? 2 : 0, oldestWaitMs: op === 'vehicle' ? 40 : 0 },
              bulk: { queued: op === 'vehicle' ? 700 : 0, oldestWaitMs: op === 'vehicle' ? 2_500 : 0 },
            },
          },
          backoffActive: () => false,
        },
      ]),
    ) as Limiters;
    metrics.attach({ limiters });
    metrics.callStarted('vehicle', 'bulk');
    metrics.callStarted('vehicle', 'bulk');
    metrics.callStarted('vehicle');
    const calls = 'verification_lane_calls_started_total';
    expect(await value(metrics, calls, { operation: 'vehicle', lane: 'bulk' })).toBe(2);
    expect(await value(metrics, calls, { operation: 'vehicle', lane: 'interactive' })).toBe(1);
    expect(await value(metrics, 'verification_vendor_calls_started_total', { operation: 'vehicle' })).toBe(3);
    const queued = 'verification_lane_queued';
    expect(await value(metrics, queued, { operation: 'vehicle', lane: 'bulk' })).toBe(700);
    expect(await value(metrics, queued, { operation: 'vehicle', lane: 'interactive' })).toBe(2);
    const oldest = 'verification_lane_oldest_wait_seconds';
    expect(await value(metrics, oldest, { operation: 'vehicle', lane: 'bulk' })).toBe(2.5);
    const labels = (await metrics.registry.getSingleMetric(queued)?.get())?.values.map((v) => v.labels);
    for (const l of labels ?? []) expect(Object.keys(l).sort()).toEqual(['lane', 'operation']);
  });
});
