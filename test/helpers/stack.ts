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
import { Kafka, logLevel, type Admin, type KafkaConfig, type Producer, type ProducerConfig } from 'kafkajs';
import type { SecureKafka } from './secure-listener.js';
import { ensureTopics } from '../../src/producers/topic-setup.js';

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
 * A kafkajs client for the provided brokers. Logging is off by default (kafkajs is noisy about
 * reconnects and rebalances); pass `{ logLevel: logLevel.WARN }` while debugging.
 */
export function kafkaClient(brokers: string, overrides: Partial<KafkaConfig> = {}): Kafka {
  return new Kafka({
    clientId: randomName('test'),
    brokers: brokerList(brokers),
    logLevel: logLevel.NOTHING,
    connectionTimeout: 5_000,
    // Fail within seconds (not minutes) when the broker is down.
    retry: { retries: 5, initialRetryTime: 200, maxRetryTime: 2_000 },
    ...overrides,
  });
}

/**
 * The producer for a test that counts what it wrote: idempotent, one request in flight. kafkajs
 * retries a send whole when it did not see it succeed (a timeout on a loaded broker, a lost
 * connection), also after the broker appended it; without idempotence the retry appends the
 * batch again and a reader counts it twice (fetch-bounds read 450 records a partition where it
 * wrote 400 on a loaded machine). The broker drops such a retry by its sequence number.
 */
export function idempotentProducer(kafka: Kafka, config: ProducerConfig = {}): Producer {
  return kafka.producer({ ...config, idempotent: true, maxInFlightRequests: 1 });
}

/** Creates a topic (replication factor 1) and waits until every partition has a leader. */
export async function createTopic(admin: Admin, name: string, partitions = 1): Promise<void> {
  if ((await admin.listTopics()).includes(name)) throw new Error(`topic ${name} already exists`);
  // The service's own creation: it retries what a loaded broker answers while leaders are elected.
  await ensureTopics(admin, [{ topic: name, numPartitions: partitions, replicationFactor: 1 }]);
}
