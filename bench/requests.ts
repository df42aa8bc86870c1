/**
 * A run's topics and its requests: fresh contract topics under a prefix of the run's own, a
 * backlog of lawsuits-summary requests published before the system starts, and the topics and
 * groups deleted afterwards (a 1M backlog and 256 partitions are not left on a shared broker).
 */
import { topicNames, type TopicNames } from '../src/contract/operations.js';
import type { Admin, Kafka, Message } from '../src/kafka/client.js';
import { contractTopics, ensureTopics } from '../src/producers/topic-setup.js';
import { cpfFor } from '../src/sandbox/scenarios.js';
import type { Measured, Scenario } from './scenario.js';

/** Messages per send: about 800 KB of requests, far below the broker's request size limit. */
const SEND_SIZE = 10_000;
/** Producers sending at once, each with one send in flight. */
const PRODUCERS = 4;

/** New contract topics for one system's run of a scenario, under a prefix of their own. */
export async function freshTopics(
  admin: Admin,
  scenario: Scenario,
  system: Measured['system'],
): Promise<{ prefix: string; topics: TopicNames }> {
  const prefix = `bench${scenario.id}${system}${Date.now().toString(36)}`;
  const topics = topicNames(prefix);
  const wanted = contractTopics(topics, {
    partitions: scenario.partitions,
    replicationFactor: 1,
    requestRetentionMs: 3_600_000,
    outputRetentionMs: 3_600_000,
    auditRetentionMs: 3_600_000,
  });
  const loaded = topics.request('lawsuits-summary');
  await ensureTopics(
    admin,
    wanted.map((topic) =>
      topic.topic === loaded && scenario.requestPartitions
        ? { ...topic, numPartitions: scenario.requestPartitions }
        : topic,
    ),
  );
  return { prefix, topics };
}

/** Deletes a run's topics and consumer groups; a failure is reported, never fatal to the run. */
export async function dropRun(admin: Admin, prefix: string): Promise<void> {
  try {
    const topics = (await admin.listTopics()).filter((topic) => topic.startsWith(`${prefix}.`));
    const groups = (await admin.listGroups()).groups
      .map((group) => group.groupId)
      .filter((group) => group.startsWith(`${prefix}.`));
    if (groups.length > 0) await admin.deleteGroups(groups);
    if (topics.length > 0) await admin.deleteTopics({ topics, timeout: 30_000 });
  } catch (error) {
    console.error(`could not delete the topics of ${prefix}:`, error);
  }
}

const TAX_IDS = Array.from({ length: 1000 }, (_, i) => cpfFor('happy', i));

/** One lawsuits-summary request: 1,000 tax ids, 97 keys per tax id. */
export function requestMessage(requestId: string, i: number): Message {
  const taxId = TAX_IDS[i % TAX_IDS.length] ?? '';
  return { key: `${taxId}-${i % 97}`, value: JSON.stringify({ requestId, params: { taxId } }) };
}

/**
 * Publishes `count` requests (`bench-<i>`) and returns the seconds it took: big sends from a few
 * producers at once, so that a 1M backlog takes seconds rather than minutes.
 */
export async function publishRequests(kafka: Kafka, topic: string, count: number): Promise<number> {
  const started = Date.now();
  const sends = Math.ceil(count / SEND_SIZE);
  await Promise.all(
    Array.from({ length: Math.min(PRODUCERS, sends) }, async (_, producerIndex) => {
      // Idempotent: a retried send under load must not write a request twice (it did, before).
      const producer = kafka.producer({ kafkaJS: { idempotent: true, acks: -1 } });
      await producer.connect();
      try {
        for (let send = producerIndex; send < sends; send += PRODUCERS) {
          const messages: Message[] = [];
          for (let i = send * SEND_SIZE; i < Math.min(count, (send + 1) * SEND_SIZE); i += 1)
            messages.push(requestMessage(`bench-${i}`, i));
          await producer.send({ topic, messages });
        }
      } finally {
        await producer.disconnect();
      }
    }),
  );
  return (Date.now() - started) / 1000;
}
