/**
 * Idle: the service with 30 request partitions assigned (3 partitions on each of the 10 request
 * topics) and no traffic, at its default settings, measured twice: as soon as the group has
 * given it the 30 partitions (none opened yet: the service opens a partition, and its
 * transactional producer, at its first batch), and again after one unreadable request per
 * partition has opened all 30 (the state of a service whose traffic has stopped). Each time,
 * after BENCH_IDLE_SETTLE_SECONDS (20), its CPU over BENCH_IDLE_SECONDS (60) from
 * /proc/<pid>/stat, and its RSS. /metrics is read only outside that span: a scrape costs CPU too.
 */
import { KafkaJS } from '@confluentinc/kafka-javascript';
import type { Admin, Kafka } from '../../src/kafka/client.js';
import { OPERATIONS, type TopicNames } from '../../src/contract/operations.js';
import { startSystem } from '../measure.js';
import { brokerConnections, serviceMetric } from '../probes.js';
import { cpuSeconds, peakRssMiB, rssMiB, stop, type Started } from '../processes.js';
import { dropRun, freshTopics } from '../requests.js';
import { ADMIN_PORT, round, type Scenario } from '../scenario.js';

const PARTITIONS_PER_TOPIC = 3;
const ASSIGNED = PARTITIONS_PER_TOPIC * OPERATIONS.length;
/** The goal (issue 12): at most 0.01 core with 30 partitions assigned. */
const GOAL_CORES = 0.01;
const TRANSACTIONS = 'verification_transactions_committed_total';
const OPENED = 'verification_partitions_assigned';

export const idle: Scenario = {
  id: 'idle',
  title: `idle, ${ASSIGNED} request partitions assigned, no traffic`,
  partitions: PARTITIONS_PER_TOPIC,
  requests: 0,
  sandbox: {},
  service: { ADMIN_PORT: String(ADMIN_PORT) },
  baselineConcurrency: 0,
  baselineCapMs: 0,
};

const settleSeconds = Number(process.env.BENCH_IDLE_SETTLE_SECONDS ?? 20);
const idleSeconds = Number(process.env.BENCH_IDLE_SECONDS ?? 60);

export interface IdleSpan {
  /** Partitions the service had opened (its verification_partitions_assigned gauge). */
  partitionsOpened: number;
  cores: number;
  rssMiB: number;
  brokerConnectionsMax: number;
  transactionsWhileIdle: number;
}

export interface IdleReport {
  title: string;
  partitionsAssigned: number;
  settleSeconds: number;
  idleSeconds: number;
  /** Assigned, never opened. */
  fresh: IdleSpan;
  /** Every partition opened by one request, then no traffic. */
  afterTraffic: IdleSpan;
  peakRssMiB: number;
  goalMet: boolean;
}

export async function measureIdle(kafka: Kafka, admin: Admin): Promise<IdleReport> {
  const { prefix, topics } = await freshTopics(admin, idle, 'service');
  let service: Started | undefined;
  try {
    service = await startSystem('service', idle, prefix, {});
    const pid = service.child.pid ?? 0;
    await untilStable(admin, `${prefix}.group`);
    const fresh = await idleSpan(pid);
    await openEveryPartition(kafka, topics);
    await until(async () => (await serviceMetric(OPENED)) >= ASSIGNED, 'its partitions opened');
    const partitionsAssigned = await serviceMetric(OPENED);
    const afterTraffic = await idleSpan(pid);
    return {
      title: idle.title,
      partitionsAssigned,
      settleSeconds,
      idleSeconds,
      fresh,
      afterTraffic,
      peakRssMiB: round(peakRssMiB(pid)),
      goalMet: Math.max(fresh.cores, afterTraffic.cores) <= GOAL_CORES,
    };
  } finally {
    if (service) await stop(service);
    await dropRun(admin, prefix);
  }
}

/** Settles, then measures the service over the idle span. */
async function idleSpan(pid: number): Promise<IdleSpan> {
  await sleep(settleSeconds * 1000);
  const partitionsOpened = await serviceMetric(OPENED);
  const transactionsBefore = await serviceMetric(TRANSACTIONS);
  const before = { cpu: cpuSeconds(pid), at: Date.now() };
  let connections = 0;
  const end = before.at + idleSeconds * 1000;
  while (Date.now() < end) {
    connections = Math.max(connections, brokerConnections(pid));
    await sleep(Math.min(1000, Math.max(0, end - Date.now())));
  }
  const cores = (cpuSeconds(pid) - before.cpu) / ((Date.now() - before.at) / 1000);
  const rss = rssMiB(pid);
  return {
    partitionsOpened,
    cores: round(cores, 4),
    rssMiB: round(rss),
    brokerConnectionsMax: connections,
    transactionsWhileIdle: (await serviceMetric(TRANSACTIONS)) - transactionsBefore,
  };
}

/**
 * Waits until the group is stable (listGroups: the admin client's describeGroups can crash the
 * process, src/kafka/client.ts). One member subscribed to every request topic then holds them all;
 * how many it holds is read from its own gauge once each has had a request.
 */
async function untilStable(admin: Admin, groupId: string): Promise<void> {
  await until(async () => {
    const listed = (await admin.listGroups()).groups.find((g) => g.groupId === groupId);
    return listed?.state === KafkaJS.ConsumerGroupStates.STABLE;
  }, 'its group stable');
}

/** One unreadable request per request partition: each is dead-lettered, its partition opened. */
async function openEveryPartition(kafka: Kafka, topics: TopicNames): Promise<void> {
  const producer = kafka.producer();
  await producer.connect();
  try {
    await producer.sendBatch({
      topicMessages: OPERATIONS.map((op) => ({
        topic: topics.request(op),
        messages: Array.from({ length: PARTITIONS_PER_TOPIC }, (_, partition) => ({
          partition,
          value: 'not a request',
        })),
      })),
    });
  } finally {
    await producer.disconnect();
  }
}

async function until(done: () => Promise<boolean>, what: string, timeoutMs = 120_000): Promise<void> {
  const started = Date.now();
  while (!(await done())) {
    if (Date.now() - started > timeoutMs)
      throw new Error(`the service did not get ${what} in ${timeoutMs} ms`);
    await sleep(500);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
