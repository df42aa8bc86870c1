/**
 * (b) vendor at 200 ms ± 50 ms, a 300 req/s limit, 3 partitions, BENCH_B_REQUESTS (20k):
 * achieved rate / limit and the most calls the sandbox saw in one second; the service's
 * transactions and socket system calls per second; the vendor leg alone at the same pace
 * (vendorPaced), what the vendor client alone costs at this rate on this machine; and the
 * transactional floor (bench/floor-consumer.ts), the least an exactly-once pipeline on the same
 * clients costs.
 */
import { transactionsAndSyscalls } from '../probes.js';
import type { Scenario } from '../scenario.js';
import { vendorPaced } from '../vendor-leg.js';

const LIMIT = 300;
const SANDBOX = {
  SANDBOX_LATENCY_MS: '200',
  SANDBOX_LATENCY_JITTER_MS: '50',
  SANDBOX_RATE_LIMIT_PER_SECOND: String(LIMIT),
};
const CONNECTIONS = 128;
/** The pace of the vendor leg alone: about what the service's limiter achieves (0.96 of the limit). */
const PACED_SHARE = 0.96;

export const rateLimitedVendor: Scenario = {
  id: 'b',
  title: 'vendor 200 ± 50 ms, limit 300 req/s, 3 partitions',
  partitions: 3,
  requests: Number(process.env.BENCH_B_REQUESTS ?? 20_000),
  sandbox: SANDBOX,
  service: {
    VENDOR_LIMITS: JSON.stringify({ 'lawsuits-summary': { ratePerSecond: LIMIT, maxConcurrent: 120 } }),
    MAX_IN_FLIGHT: '1000',
    PARTITION_WINDOW: '2000',
    VENDOR_CONNECTIONS: String(CONNECTIONS),
  },
  baselineConcurrency: 3,
  baselineCapMs: Number(process.env.BENCH_B_BASELINE_CAP_MS ?? 30_000),
  limitPerSecond: LIMIT,
  serviceProbe: transactionsAndSyscalls,
  // All of the floor's settings, so that none comes from the benchmark's own environment: at
  // 288/s, 30 results a transaction is about the service's ten a second, and four slices under
  // way on each of 3 partitions keep 360 requests in flight.
  floor: {
    FLOOR_RATE_PER_SECOND: String(LIMIT * PACED_SHARE),
    FLOOR_TRANSACTION_SIZE: '30',
    FLOOR_SLICES_AHEAD: '4',
  },
  extra: async () => ({ vendorPaced: await vendorPaced(SANDBOX, LIMIT * PACED_SHARE, CONNECTIONS) }),
};
