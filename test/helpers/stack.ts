/**
 * Test-side helpers for the shared Kafka / schema registry / Redis stack that
 * test/global-setup.ts provides (see stack/README.md).
 *
 * In a test file:
 *   const kafka = kafkaClient(inject('kafkaBrokers'));
 *   const topic = randomName('orders');
 *   await createTopic(admin, topic, 3);
 */
import { randomUUID } from 'node:crypto';
import { KafkaJS } from '@confluentinc/kafka-javascript';
import {
  createKafka,
  type Admin,
  type Kafka,
  type KafkaClientSettings,
  type Producer,
  type ProducerConstructorConfig,
} from '../../src/kafka/client.js';
import type { SecureKafka } from './secure-listener.js';
import { createTopicsReady } from './create-topics.js';

/** Values that test/global-setup.ts hands to the tests (read them with `inject(...)`). */
export interface StackEndpoints {
  /** Comma-separated host:port list. */
  kafkaBrokers: string;
  /** Base URL of the Confluent-compatible API, e.g. http://127.0.0.1:8081/apis/ccompat/v7 */
  schemaRegistryUrl: string;
  /** redis://host:port */
  redisUrl: string;
  /** The broker's SASL_SSL listener, or why there is none. */
  kafkaSecure: SecureKafka;
}

/** A unique, Kafka-safe name (topic, group, transactional id...) so test files never collide. */
export function randomName(prefix: string): string {
  const safe = prefix.replace(/[^a-zA-Z0-9._-]/g, '-');
  return `${safe}-${Date.now().toString(36)}-${randomUUID().slice(0, 8)}`;
}

/** Splits a KAFKA_BROKERS-style list ("h1:9092,h2:9092"). */
export function brokerList(brokers: string): string[] {
  return brokers
    .split(',')
    .map((b) => b.trim())
    .filter((b) => b.length > 0);
}

/**
 * A client of the provided brokers, made as the service makes its own (src/kafka/client.ts).
 * Silent by default; pass `{ logger }` while debugging, `{ security }` for the SASL_SSL listener.
 */
export function kafkaClient(
  brokers: string,
  settings: Omit<Partial<KafkaClientSettings>, 'brokers'> = {},
): Kafka {
  return createKafka({
    clientId: randomName('test'),
    brokers: brokerList(brokers),
    connectionTimeoutMs: 5_000,
    // Fail within seconds (not minutes) when the broker is down.
    retry: { retries: 5, initialRetryTime: 200, maxRetryTime: 2_000 },
    ...settings,
  });
}

/**
 * The producer for a test that counts what it wrote: idempotent, every write acknowledged by all
 * replicas. The client retries a send it did not see succeed (a timeout on a loaded broker, a
 * lost connection), also after the broker appended it; without idempotence the retry appends
 * the batch again and a reader counts it twice. The broker drops such a retry by its sequence
 * number.
 */
export function idempotentProducer(kafka: Kafka, config: ProducerConstructorConfig = {}): Producer {
  return kafka.producer({ ...config, kafkaJS: { ...config.kafkaJS, idempotent: true, acks: -1 } });
}

/** Creates a topic (replication factor 1) and waits until every partition answers. */
export async function createTopic(admin: Admin, name: string, partitions = 1): Promise<void> {
  if ((await admin.listTopics()).includes(name)) throw new Error(`topic ${name} already exists`);
  await createTopicsReady(admin, [name], () => partitions);
}

/** A partition given to or taken from a consumer. */
export interface TopicPartition {
  topic: string;
  partition: number;
}

/**
 * What a consumer was given, rebalance by rebalance: the client has no GROUP_JOIN event, so the
 * consumer is made with `rebalance_cb` (spread `config` into its settings), which the client
 * calls before it applies each assignment and revocation.
 */
export interface AssignmentWatch {
  config: { rebalance_cb: (error: { code: number }, assignment: TopicPartition[]) => void };
  /** Each assignment in order (with the cooperative assignor, the partitions added). */
  assigned: TopicPartition[][];
  /** Resolves once the consumer has been given partitions `n` times in all. */
  assignments: (n?: number) => Promise<TopicPartition[][]>;
}

export function watchAssignments(): AssignmentWatch {
  const assigned: TopicPartition[][] = [];
  const waiting = new Set<() => void>();
  const config: AssignmentWatch['config'] = {
    rebalance_cb: (error, assignment) => {
      if (error.code !== KafkaJS.ErrorCodes.ERR__ASSIGN_PARTITIONS) return;
      assigned.push(assignment.map(({ topic, partition }) => ({ topic, partition })));
      for (const wake of waiting) wake();
    },
  };
  const assignments = (n = 1): Promise<TopicPartition[][]> =>
    new Promise((resolve) => {
      const check = (): void => {
        if (assigned.length < n) return;
        waiting.delete(check);
        resolve(assigned);
      };
      waiting.add(check);
      check();
    });
  return { config, assigned, assignments };
}
