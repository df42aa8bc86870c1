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
    MAX_IN_FLIGHT: '1000',
    PARTITION_WINDOW: '2000',
    VENDOR_CONNECTIONS: '64',
  },
  baselineConcurrency: 6,
  baselineCapMs: 240_000,
  extra: async () => ({ vendorAlone: await vendorAlone() }),
};
