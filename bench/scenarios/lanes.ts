/**
 * Lanes (issue 41): vendor 200 ± 50 ms, limit 300/s, 6 partitions per lane. A backlog of
 * BENCH_LANES_BULK (50,000) bulk requests is published first, then an interactive stream of
 * 20/s for BENCH_LANES_SECONDS (60 s). Run twice in turn: with the lanes (bulk on
 * `.requests.<op>.bulk`) and as today's single lane (every request on the one topic), the
 * baseline. Figures: the interactive requests' added latency (produce until the outcome is
 * visible to a read_committed reader, minus the vendor's configured mean latency) and where it
 * went, bulk outcomes per second while the stream runs and the slowest second of bulk calls
 * started, the share of the limit used (calls the vendor billed during the stream), the busiest
 * sliding second the vendor saw, late slots, commit rounds per second and the broker's CPU, the
 * service's peak RSS, exactly once over both lanes.
 */
import type { Admin, Kafka } from '../../src/kafka/client.js';
import { produceSteadily } from '../latency.js';
import { freshTopics, dropRun, publishRequests } from '../requests.js';
import { cpuSeconds, peakRssMiB, stop, type Started } from '../processes.js';
import { stackPids, startSandbox, startSystem, vendorCounters } from '../measure.js';
import { percentiles, readOutcomes, type OutcomeReader } from '../outcome-reader.js';
import { ADMIN_PORT, round, type Scenario } from '../scenario.js';
import { serviceMetrics } from '../probes.js';
import { metricSum } from '../proc.js';

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

const BULK_STARTED = /^verification_lane_calls_started_total\{[^}]*lane="bulk"[^}]*\} (\S+)$/gm;

/**
 * Reads the service's /metrics each second until stopped: how many bulk calls it started and
 * transactions it committed each second.
 */
function sampleService(): {
  stop(): Promise<{ bulkStartsPerSecond: number[]; transactionsPerSecond: number[] }>;
} {
  const bulkStartsPerSecond: number[] = [];
  const transactionsPerSecond: number[] = [];
  const state = { running: true };
  let last: { at: number; started: number; transactions: number } | undefined;
  const loop = (async () => {
    while (state.running) {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const page = await serviceMetrics().catch(() => '');
      if (!page) continue;
      const at = Date.now();
      const started = [...page.matchAll(BULK_STARTED)].reduce((sum, m) => sum + Number(m[1]), 0);
      const transactions = metricSum(page, 'verification_transactions_committed_total');
      if (last) {
        bulkStartsPerSecond.push(((started - last.started) * 1000) / (at - last.at));
        transactionsPerSecond.push(((transactions - last.transactions) * 1000) / (at - last.at));
      }
      last = { at, started, transactions };
    }
  })();
  return {
    async stop() {
      state.running = false;
      await loop;
      return { bulkStartsPerSecond, transactionsPerSecond };
    },
  };
}

/** The outcome's receivedAt and completedAt (epoch ms), when it has both. */
function stampsOf(value: Buffer | null): { receivedAt: number; completedAt: number } | undefined {
  if (!value) return undefined;
  const json = (value[0] === 0 ? value.subarray(5) : value).toString();
  const receivedAt = Date.parse(/"receivedAt":"([^"]+)"/.exec(json)?.[1] ?? '');
  const completedAt = Date.parse(/"completedAt":"([^"]+)"/.exec(json)?.[1] ?? '');
  return Number.isFinite(receivedAt) && Number.isFinite(completedAt)
    ? { receivedAt, completedAt }
    : undefined;
}

async function runMode(kafka: Kafka, admin: Admin, mode: Mode): Promise<Record<string, unknown>> {
  const scenario = { ...lanesScenario, id: `lanes${mode}` };
  const { prefix, topics } = await freshTopics(admin, scenario, 'service');
  const bulkTopic = topics.request('lawsuits-summary', mode === 'lanes' ? 'bulk' : 'interactive');
  const sandbox = await startSandbox(scenario.sandbox);
  let service: Started | undefined;
  const sentAt = new Map<string, number>();
  const bulkAt: number[] = [];
  const added: number[] = [];
  const stages = { toReceived: [] as number[], inService: [] as number[], toVisible: [] as number[] };
  let reader: OutcomeReader | undefined;
  try {
    const publishSeconds = await publishRequests(kafka, bulkTopic, BULK);
    service = await startSystem('service', scenario, prefix, { ADMIN_PORT: String(ADMIN_PORT) });
    reader = await readOutcomes(
      kafka,
      `${prefix}.lanes`,
      [topics.result('lawsuits-summary'), topics.errors],
      (id, message, at) => {
        if (id.startsWith('bench-')) bulkAt.push(at);
        const sent = sentAt.get(id);
        if (sent === undefined) return;
        added.push(at - sent - VENDOR_MEAN_MS);
        const times = stampsOf(message.value);
        if (!times) return;
        stages.toReceived.push(times.receivedAt - sent);
        stages.inService.push(times.completedAt - times.receivedAt - VENDOR_MEAN_MS);
        stages.toVisible.push(at - times.completedAt);
      },
    );
    const { seen } = reader;
    const waitFor = async (done: () => boolean, ms: number): Promise<void> => {
      const deadline = Date.now() + ms;
      while (!done() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
    };
    await waitFor(() => bulkAt.length > 0, 120_000);
    const streamFrom = Date.now();
    const billedFrom = (await vendorCounters()).billed;
    const broker = stackPids().kafka;
    const brokerCpuFrom = broker ? cpuSeconds(broker) : 0;
    const sampler = sampleService();
    await produceSteadily(
      kafka,
      topics.request('lawsuits-summary'),
      sentAt,
      { perSecond: INTERACTIVE_PER_SECOND, seconds: SECONDS },
      'int',
    );
    const streamTo = Date.now();
    const billedTo = (await vendorCounters()).billed;
    const brokerCpuTo = broker ? cpuSeconds(broker) : 0;
    const sampled = await sampler.stop();
    // Slots given back because a call woke too late for them (each one a slot unused).
    const lateSlots = metricSum(await serviceMetrics(), 'verification_limiter_late_slots_total');
    await waitFor(() => [...sentAt.keys()].every((id) => seen.has(id)), 600_000);
    const bulkInStream = bulkAt.filter((t) => t >= streamFrom && t < streamTo);
    const streamSeconds = (streamTo - streamFrom) / 1000;
    await waitFor(() => seen.size >= BULK + sentAt.size, BULK * 10 + 60_000);
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const duplicates = reader.duplicates();
    const answered = [...seen.keys()].filter((id) => id.startsWith('bench-') || sentAt.has(id)).length;
    return {
      mode,
      publishSeconds: round(publishSeconds),
      interactiveAddedMs: percentiles(added),
      // Where it went: produce until the service took it (receivedAt), in the service minus the
      // vendor's mean (completedAt - receivedAt - 200), and until a read_committed reader saw it.
      interactiveStagesMs: {
        toReceived: percentiles(stages.toReceived),
        inServiceBeyondVendor: percentiles(stages.inService),
        toVisible: percentiles(stages.toVisible),
      },
      bulkOutcomesPerSecond: round(bulkInStream.length / streamSeconds),
      // Bulk calls the service started in each second of the stream (its lane counter), the
      // slowest second: outcomes become visible a commit round at a time, calls start evenly.
      bulkStartsSlowestSecond: round(Math.min(...sampled.bulkStartsPerSecond)),
      lateSlotsSinceStart: lateSlots,
      // Commit rounds (transactions) per second over the stream.
      transactionsPerSecond: percentiles(sampled.transactionsPerSecond),
      // The calls the vendor billed while the stream ran, over the limit: what both lanes used.
      shareOfLimit: round((billedTo - billedFrom) / streamSeconds / LIMIT, 3),
      // The local broker's CPU (cores) while the stream ran: commit rounds cost it most.
      ...(broker ? { brokerCores: round((brokerCpuTo - brokerCpuFrom) / streamSeconds, 3) } : {}),
      vendor: await vendorCounters(),
      peakRssMiB: round(peakRssMiB(service.child.pid ?? 0)),
      exactlyOnce: duplicates === 0 && answered === BULK + sentAt.size,
      duplicates,
      withoutOutcome: BULK + sentAt.size - answered,
    };
  } finally {
    await reader?.stop();
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
      bulkNeverBelowShare: (lanes.bulkStartsSlowestSecond as number) >= MIN_SHARE * LIMIT,
      rssWithin110Percent: (lanes.peakRssMiB as number) <= 1.1 * (single.peakRssMiB as number),
    },
  };
}
