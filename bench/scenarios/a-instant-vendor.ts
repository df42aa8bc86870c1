/**
 * (a) instant vendor, BENCH_A_REQUESTS (100k) requests over 6 partitions: results/s, CPU
 * seconds per 1,000 messages, peak RSS; and the vendor leg alone (vendorAlone), the machine's
 * ceiling for (a) without Kafka.
 */
import type { Scenario } from '../scenario.js';
import { vendorAlone } from '../vendor-leg.js';

export const instantVendor: Scenario = {
  id: 'a',
  title: 'instant vendor, 6 partitions',
  partitions: 6,
  requests: Number(process.env.BENCH_A_REQUESTS ?? 100_000),
  sandbox: {},
  service: {
    VENDOR_LIMITS: JSON.stringify({ 'lawsuits-summary': { ratePerSecond: 1_000_000, maxConcurrent: 256 } }),
    // Enough in flight to keep the one JavaScript thread busy (at 32, (a) lost a quarter of its
    // throughput), and no more: past that, more in flight only makes each request take longer
    // (330 ms at 1,000 and 3,000/s), longer than V8's young generation holds it (a scavenge
    // about every 30 ms), so what it holds is copied and promoted. Against 1,000 / 2,000, in
    // turns: 0.85x the CPU per request, the same throughput (see bench/README.md).
    MAX_IN_FLIGHT: '128',
    PARTITION_WINDOW: '1000',
    VENDOR_CONNECTIONS: '64',
  },
  baselineConcurrency: 6,
  baselineCapMs: 240_000,
  extra: async () => ({ vendorAlone: await vendorAlone() }),
};
