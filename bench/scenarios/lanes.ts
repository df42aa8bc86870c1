/**
 * Lanes (issue 41): vendor 200 ± 50 ms, limit 300/s, 6 partitions per lane. A backlog of
 * BENCH_LANES_BULK (50,000) bulk requests is published first, then an interactive stream of
 * 20/s for BENCH_LANES_SECONDS (60 s). Run twice in turn: with the lanes (bulk on
 * `.requests.<op>.bulk`) and as today's single lane (every request on the one topic), the
 * baseline. Figures: the interactive requests' added latency (produce until the outcome is
 * visible to a read_committed reader, minus the vendor's configured mean latency), bulk outcomes
 * per second while the stream runs and its slowest second, the share of the limit used, the
 * busiest sliding second the vendor saw, the service's peak RSS, exactly once over both lanes.
 */
import type { Admin, Kafka } from 'kafkajs';
import { produceSteadily } from '../latency.js';
import { freshTopics, dropRun, publishRequests } from '../requests.js';
import { peakRssMiB, stop, type Started } from '../processes.js';
import { requestIdOf, startSandbox, startSystem, vendorCounters } from '../measure.js';
import { round, type Scenario } from '../scenario.js';

const LIMIT = 300;
const VENDOR_MEAN_MS = 200;
const BULK = Number(process.env.BENCH_LANES_BULK ?? 50_000);
const SECONDS = Number(process.env.BENCH_LANES_SECONDS ?? 60);
const INTERACTIVE_PER_SECOND = 20;
const MIN_SHARE = 0.1;

export const lanesScenario: Scenario = {
  id: 'lanes',
  title: `lanes: ${BULK} bulk first, then 20/s interactive for ${SECONDS} s; vendor 200 ± 50 ms, limit 300/s, 6 partitions per lane`,
  partitions: 6,
  requests: BULK + INTERACTIVE_PER_SECOND * SECONDS,
  sandbox: {
    SANDBOX_LATENCY_MS: String(VENDOR_MEAN_MS),
    SANDBOX_LATENCY_JITTER_MS: '50',
    SANDBOX_RATE_LIMIT_PER_SECOND: String(LIMIT),
  },
  service: {
    VENDOR_LIMITS: JSON.stringify({ 'lawsuits-summary': { ratePerSecond: LIMIT, maxConcurrent: 120 } }),
    MAX_IN_FLIGHT: '1000',
    PARTITION_WINDOW: '2000',
    VENDOR_CONNECTIONS: '128',
    LANE_BULK_MIN_SHARE: String(MIN_SHARE),
    DEDUPE_WINDOW_SECONDS: '3600',
  },
  baselineConcurrency: 0,
  baselineCapMs: 0,
  limitPerSecond: LIMIT,
};

type Mode = 'lanes' | 'single';

function percentiles(values: number[]): Record<string, number> {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number): number =>
    round(sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0);
  return { p50: at(0.5), p90: at(0.9), p99: at(0.99), max: round(sorted.at(-1) ?? 0) };
}

async function runMode(kafka: Kafka, admin: Admin, mode: Mode): Promise<Record<string, unknown>> {
  const scenario = { ...lanesScenario, id: `lanes${mode}` };
  const { prefix, topics } = await freshTopics(admin, scenario, 'service');
  const bulkTopic = topics.request('lawsuits-summary', mode === 'lanes' ? 'bulk' : 'interactive');
  const sandbox = await startSandbox(scenario.sandbox);
  let service: Started | undefined;
  const sentAt = new Map<string, number>();
  const seen = new Map<string, number>();
  const bulkAt: number[] = [];
  const added: number[] = [];
  const reader = kafka.consumer({ groupId: `${prefix}.lanes`, readUncommitted: false, maxWaitTimeInMs: 100 });
  try {
    const publishSeconds = await publishRequests(kafka, bulkTopic, BULK);
    service = await startSystem('service', scenario, prefix, {});
    await reader.connect();
    await reader.subscribe({
      topics: [topics.result('lawsuits-summary'), topics.errors],
      fromBeginning: true,
    });
    await reader.run({
      eachMessage: async ({ message }) => {
        const at = Date.now();
        const id = requestIdOf(message.value);
        const count = (seen.get(id) ?? 0) + 1;
        seen.set(id, count);
        if (count === 1 && id.startsWith('bench-')) bulkAt.push(at);
        const sent = sentAt.get(id);
        if (count === 1 && sent !== undefined) added.push(at - sent - VENDOR_MEAN_MS);
        await Promise.resolve();
      },
    });
    const waitFor = async (done: () => boolean, ms: number): Promise<void> => {
      const deadline = Date.now() + ms;
      while (!done() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
    };
    await waitFor(() => bulkAt.length > 0, 120_000);
    const streamFrom = Date.now();
    await produceSteadily(
      kafka,
      topics.request('lawsuits-summary'),
      sentAt,
      { perSecond: INTERACTIVE_PER_SECOND, seconds: SECONDS },
      'int',
    );
    const streamTo = Date.now();
    await waitFor(() => [...sentAt.keys()].every((id) => seen.has(id)), 600_000);
    const bulkInStream = bulkAt.filter((t) => t >= streamFrom && t < streamTo);
    const perSecond = Array.from(
      { length: Math.floor((streamTo - streamFrom) / 1000) },
      (_, s) =>
        bulkInStream.filter((t) => t >= streamFrom + s * 1000 && t < streamFrom + (s + 1) * 1000).length,
    );
    const interactiveInStream = sentAt.size;
    const streamSeconds = (streamTo - streamFrom) / 1000;
    await waitFor(() => seen.size >= BULK + sentAt.size, BULK * 10 + 60_000);
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const duplicates = [...seen.values()].reduce((sum, n) => sum + n - 1, 0);
    const answered = [...seen.keys()].filter((id) => id.startsWith('bench-') || sentAt.has(id)).length;
    return {
      mode,
      publishSeconds: round(publishSeconds),
      interactiveAddedMs: percentiles(added),
      bulkOutcomesPerSecond: round(bulkInStream.length / streamSeconds),
      bulkSlowestSecond: Math.min(...perSecond),
      shareOfLimit: round((bulkInStream.length + interactiveInStream) / streamSeconds / LIMIT, 3),
      vendor: await vendorCounters(),
      peakRssMiB: round(peakRssMiB(service.child.pid ?? 0)),
      exactlyOnce: duplicates === 0 && answered === BULK + sentAt.size,
      duplicates,
      withoutOutcome: BULK + sentAt.size - answered,
    };
  } finally {
    await reader.disconnect();
    if (service) await stop(service);
    await stop(sandbox);
    await dropRun(admin, prefix);
  }
}

/** Both runs, the lanes first, and the lanes against the single lane. */
export async function measureLanes(kafka: Kafka, admin: Admin): Promise<Record<string, unknown>> {
  const lanes = await runMode(kafka, admin, 'lanes');
  const single = await runMode(kafka, admin, 'single');
  const p99 = (run: Record<string, unknown>): number =>
    (run.interactiveAddedMs as Record<string, number>).p99 ?? Infinity;
  const vendor = lanes.vendor as { maxInAnySlidingSecond: number };
  return {
    title: lanesScenario.title,
    bulk: BULK,
    interactiveSeconds: SECONDS,
    lanes,
    single,
    rssAgainstSingle: round((lanes.peakRssMiB as number) / (single.peakRssMiB as number), 2),
    goals: {
      interactiveP99AddedAtMost250Ms: p99(lanes) <= 250,
      totalAtLeast95PercentOfLimit: (lanes.shareOfLimit as number) >= 0.95,
      noSecondOverLimit: vendor.maxInAnySlidingSecond <= LIMIT,
      bulkNeverBelowShare: (lanes.bulkSlowestSecond as number) >= MIN_SHARE * LIMIT,
      rssWithin110Percent: (lanes.peakRssMiB as number) <= 1.1 * (single.peakRssMiB as number),
    },
  };
}
