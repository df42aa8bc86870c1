/**
 * (b) vendor at 200 ms ± 50 ms, a 300 req/s limit, 3 partitions, BENCH_B_REQUESTS (20k):
 * achieved rate / limit and the most calls the sandbox saw in one second.
 */
import type { Scenario } from '../scenario.js';

export const rateLimitedVendor: Scenario = {
  id: 'b',
  title: 'vendor 200 ± 50 ms, limit 300 req/s, 3 partitions',
  partitions: 3,
  requests: Number(process.env.BENCH_B_REQUESTS ?? 20_000),
  sandbox: {
    SANDBOX_LATENCY_MS: '200',
    SANDBOX_LATENCY_JITTER_MS: '50',
    SANDBOX_RATE_LIMIT_PER_SECOND: '300',
  },
  service: {
    VENDOR_LIMITS: JSON.stringify({ 'lawsuits-summary': { ratePerSecond: 300, maxConcurrent: 120 } }),
    MAX_IN_FLIGHT: '1000',
    PARTITION_WINDOW: '2000',
    VENDOR_CONNECTIONS: '128',
  },
  baselineConcurrency: 3,
  baselineCapMs: Number(process.env.BENCH_B_BASELINE_CAP_MS ?? 30_000),
  limitPerSecond: 300,
};
