/**
 * The broker's warm-up before the first measurement. A production broker has run for days: its
 * JIT has compiled the produce, fetch and transaction paths long ago. A broker the benchmark
 * has just started has not, and whatever runs first pays for it (the service, since each
 * scenario runs it before its baseline). On a fresh broker on G1, (c)'s p99 was 82-93 ms in a
 * first run against 38-39 ms in the next one on the same broker.
 *
 * So the service first takes BENCH_WARMUP_REQUESTS (20k) requests from an instant vendor (the
 * bulk produce and fetch paths), then (c)'s paced load for BENCH_WARMUP_SECONDS (30 s; many
 * small transactions). Nothing of it is reported but its size and duration.
 * BENCH_WARMUP_REQUESTS=0 leaves it out (and makes the run partial).
 */
import type { Admin, Kafka } from '../src/kafka/client.js';
import { measureLatency } from './latency.js';
import { measure } from './measure.js';
import { round, warmUpSettings } from './scenario.js';
import { instantVendor } from './scenarios/a-instant-vendor.js';
import { addedLatency, latencyLoad } from './scenarios/c-added-latency.js';

export interface WarmUp {
  bulkRequests: number;
  pacedSeconds: number;
  seconds: number;
}

export async function warmUpBroker(kafka: Kafka, admin: Admin): Promise<WarmUp | undefined> {
  const { bulkRequests, pacedSeconds } = warmUpSettings(process.env);
  if (bulkRequests === 0) return undefined;
  const started = performance.now();
  console.log(
    `warming the broker up: ${bulkRequests} requests, then ${pacedSeconds} s at ${latencyLoad.perSecond}/s`,
  );
  await measure(kafka, admin, { ...instantVendor, id: 'warmup', requests: bulkRequests }, 'service');
  if (pacedSeconds > 0)
    await measureLatency(kafka, admin, { ...addedLatency, id: 'warmup' }, 'service', {
      ...latencyLoad,
      seconds: pacedSeconds,
    });
  return { bulkRequests, pacedSeconds, seconds: round((performance.now() - started) / 1000, 1) };
}
