/**
 * Added latency, measured from outside the system: each request's produce time (this
 * process's clock just before the send) until its outcome is visible to a read_committed
 * reader (this process's clock on receipt), minus the sandbox's fixed latency. Requests are
 * produced at a steady rate, a few every tick on a clock that does not drift.
 */
import type { Admin, Kafka } from '../src/kafka/client.js';
import { startSandbox, startSystem, vendorCounters } from './measure.js';
import { percentiles, readOutcomes, type OutcomeReader, type Percentiles } from './outcome-reader.js';
import { serviceMetrics } from './probes.js';
import { metricSum } from './proc.js';
import { cpuSeconds, peakRssMiB, stop, type Started } from './processes.js';
import { dropRun, freshTopics, requestMessage } from './requests.js';
import { round, type Measured, type Scenario } from './scenario.js';

export interface LatencyFigures {
  system: Measured['system'];
  requests: number;
  /** Outcomes seen per request beyond the first. */
  duplicateOutcomes: number;
  requestsWithoutOutcome: number;
  /** Added latency in ms over the requests after the warm-up. */
  addedMs: Percentiles;
  /** Of which: produce until the outcome record was written (its CreateTime), minus the vendor's fixed latency. */
  untilWrittenMs: Percentiles;
  /** Of which: the outcome written until visible to a read_committed reader (the commit). */
  writtenUntilVisibleMs: Percentiles;
  cpuSecondsPer1000: number;
  peakRssMiB: number;
  vendor: Measured['vendor'];
  /** The service's own view (its /metrics), over the measured span: where the time went. */
  inside?: InsideFigures;
}

/** Means over the measured span, from the service's histograms, in ms; transactions per second. */
export interface InsideFigures {
  limiterWaitMs: number;
  vendorCallMs: number;
  transactionMs: number;
  transactionsPerSecond: number;
}

const INSIDE = {
  limiterWait: 'verification_limiter_wait_seconds',
  vendorCall: 'verification_vendor_call_seconds',
  transaction: 'verification_transaction_commit_seconds',
} as const;

type InsideSample = Record<string, number>;

async function sampleInside(): Promise<InsideSample> {
  const sample: InsideSample = { at: Date.now() };
  const page = await serviceMetrics();
  for (const name of Object.values(INSIDE)) {
    sample[`${name}_sum`] = metricSum(page, `${name}_sum`);
    sample[`${name}_count`] = metricSum(page, `${name}_count`);
  }
  return sample;
}

function insideBetween(before: InsideSample, after: InsideSample): InsideFigures {
  const delta = (key: string): number => (after[key] ?? 0) - (before[key] ?? 0);
  const meanMs = (name: string): number =>
    round((delta(`${name}_sum`) / Math.max(1, delta(`${name}_count`))) * 1000, 1);
  return {
    limiterWaitMs: meanMs(INSIDE.limiterWait),
    vendorCallMs: meanMs(INSIDE.vendorCall),
    transactionMs: meanMs(INSIDE.transaction),
    transactionsPerSecond: round(delta(`${INSIDE.transaction}_count`) / (delta('at') / 1000), 1),
  };
}

export interface LatencyLoad {
  perSecond: number;
  seconds: number;
  warmupSeconds: number;
  vendorFixedMs: number;
}

const TICK_MS = 20;

export async function measureLatency(
  kafka: Kafka,
  admin: Admin,
  scenario: Scenario,
  system: Measured['system'],
  load: LatencyLoad,
): Promise<LatencyFigures> {
  const { prefix, topics } = await freshTopics(admin, scenario, system);
  const sandbox = await startSandbox(scenario.sandbox);
  let target: Started | undefined;
  const sentAt = new Map<string, number>();
  const latencies: number[] = [];
  const untilWritten: number[] = [];
  const untilVisible: number[] = [];
  let reader: OutcomeReader | undefined;
  try {
    target = await startSystem(system, scenario, prefix, {});
    reader = await readOutcomes(
      kafka,
      `${prefix}.latency`,
      [topics.result('lawsuits-summary'), topics.errors],
      (id, message, receivedAt) => {
        const sent = sentAt.get(id);
        if (sent === undefined || id.startsWith('warmup-')) return;
        const writtenAt = Number(message.timestamp);
        latencies.push(receivedAt - sent - load.vendorFixedMs);
        untilWritten.push(writtenAt - sent - load.vendorFixedMs);
        untilVisible.push(receivedAt - writtenAt);
      },
    );
    const { seen } = reader;
    const pid = target.child.pid ?? 0;
    await produceSteadily(
      kafka,
      topics.request('lawsuits-summary'),
      sentAt,
      { ...load, seconds: load.warmupSeconds },
      'warmup',
    );
    const cpuBefore = cpuSeconds(pid);
    const insideBefore = system === 'service' ? await sampleInside() : undefined;
    await produceSteadily(kafka, topics.request('lawsuits-summary'), sentAt, load, 'lat');
    const deadline = Date.now() + 60_000;
    while ([...sentAt.keys()].some((id) => !seen.has(id)) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 200));
    const inside = insideBefore ? insideBetween(insideBefore, await sampleInside()) : undefined;
    const measured = load.perSecond * load.seconds;
    return {
      system,
      requests: sentAt.size,
      duplicateOutcomes: reader.duplicates(),
      requestsWithoutOutcome: [...sentAt.keys()].filter((id) => !seen.has(id)).length,
      addedMs: percentiles(latencies),
      untilWrittenMs: percentiles(untilWritten),
      writtenUntilVisibleMs: percentiles(untilVisible),
      cpuSecondsPer1000: round(((cpuSeconds(pid) - cpuBefore) / measured) * 1000, 2),
      peakRssMiB: round(peakRssMiB(pid)),
      vendor: await vendorCounters(),
      ...(inside ? { inside } : {}),
    };
  } finally {
    await reader?.stop();
    if (target) await stop(target);
    await stop(sandbox);
    await dropRun(admin, prefix);
  }
}

/**
 * Sends `perSecond` requests a second for `seconds`, a few every tick, on a clock that does not
 * drift. One send at a time, as before on kafkajs (whose concurrent idempotent sends could reach
 * the broker out of sequence): the figures stay comparable with earlier runs. Requests due
 * while a send is under way go in the next one, and a request's produce time is when its send
 * starts. A failed send ends the run with its error.
 */
export async function produceSteadily(
  kafka: Kafka,
  topic: string,
  sentAt: Map<string, number>,
  load: Pick<LatencyLoad, 'perSecond' | 'seconds'>,
  label: string,
): Promise<void> {
  const producer = kafka.producer({ kafkaJS: { idempotent: true, acks: -1 } });
  await producer.connect();
  const total = load.perSecond * load.seconds;
  const start = Date.now();
  const due: number[] = [];
  let sending: Promise<void> | undefined;
  let failure: { error: unknown } | undefined;
  const sendDue = (): void => {
    if (sending || due.length === 0) return;
    const now = Date.now();
    const messages = due.splice(0).map((i) => {
      const requestId = `${label}-${i}`;
      sentAt.set(requestId, now);
      return requestMessage(requestId, i);
    });
    sending = producer.send({ topic, messages }).then(
      () => {
        sending = undefined;
        sendDue();
      },
      (error: unknown) => {
        failure ??= { error };
        sending = undefined;
      },
    );
  };
  try {
    let queued = 0;
    for (let tick = 1; queued < total; tick += 1) {
      if (failure) throw failure.error;
      const upTo = Math.min(total, Math.round((tick * TICK_MS * load.perSecond) / 1000));
      while (queued < upTo) due.push(queued++);
      sendDue();
      const wait = start + tick * TICK_MS - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    }
    sendDue();
    while (sending) {
      await sending;
      sendDue();
    }
    if (failure) throw failure.error;
  } finally {
    await producer.disconnect();
  }
}
