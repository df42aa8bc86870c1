import { describe, expect, it } from 'vitest';
import { OPERATIONS, type Operation } from '../../../src/contract/operations.js';
import { createMetrics, type MetricSources } from '../../../src/observability/metrics.js';

type Limiters = NonNullable<MetricSources['limiters']>;

/** Limiters whose late slots are what `late` says (0 for the others). */
function limitersWith(late: { lateSlots: number }, operation: Operation): Limiters {
  return Object.fromEntries(
    OPERATIONS.map((op) => [
      op,
      {
        get stats() {
          return { started: 0, lateSlots: op === operation ? late.lateSlots : 0 };
        },
        backoffActive: () => false,
      },
    ]),
  ) as Limiters;
}

async function lateSlots(metrics: ReturnType<typeof createMetrics>, operation: Operation): Promise<number> {
  const metric = await metrics.registry.getSingleMetric('verification_limiter_late_slots_total')?.get();
  return metric?.values.find((v) => v.labels.operation === operation)?.value ?? Number.NaN;
}

describe('verification_limiter_late_slots_total', () => {
  it("is each operation's count of slots given back for lateness, read at every scrape", async () => {
    const metrics = createMetrics();
    const late = { lateSlots: 3 };
    metrics.attach({ limiters: limitersWith(late, 'vehicle') });
    expect(await lateSlots(metrics, 'vehicle')).toBe(3);
    expect(await lateSlots(metrics, 'lawsuits-summary')).toBe(0);
    late.lateSlots = 5;
    expect(await lateSlots(metrics, 'vehicle')).toBe(5);
  });
});
