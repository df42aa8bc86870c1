/**
 * (c) added latency at half of (b)'s limit: 150 requests/s for BENCH_C_SECONDS (60) after a
 * 5 s warm-up, vendor fixed at 50 ms, limit 300/s, 6 partitions. Measured from outside
 * (bench/latency.ts): produce until visible to a read_committed reader, minus the 50 ms.
 */
import type { LatencyLoad } from '../latency.js';
import { ADMIN_PORT, type Scenario } from '../scenario.js';
import { rateLimitedVendor } from './b-rate-limited-vendor.js';

export const VENDOR_FIXED_MS = 50;

export const latencyLoad: LatencyLoad = {
  perSecond: 150,
  seconds: Number(process.env.BENCH_C_SECONDS ?? 60),
  warmupSeconds: 5,
  vendorFixedMs: VENDOR_FIXED_MS,
};

export const addedLatency: Scenario = {
  id: 'c',
  title: 'added latency at 150 req/s, vendor fixed 50 ms, 6 partitions',
  partitions: 6,
  requests: latencyLoad.perSecond * latencyLoad.seconds,
  sandbox: {
    SANDBOX_LATENCY_MS: String(VENDOR_FIXED_MS),
    SANDBOX_LATENCY_JITTER_MS: '0',
    SANDBOX_RATE_LIMIT_PER_SECOND: '300',
  },
  // (b)'s limits and windows, at half its rate; /metrics on a known port.
  service: { ...rateLimitedVendor.service, ADMIN_PORT: String(ADMIN_PORT) },
  baselineConcurrency: 6,
  baselineCapMs: 0,
  limitPerSecond: 300,
};
