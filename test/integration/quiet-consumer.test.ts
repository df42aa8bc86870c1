/**
 * confluentinc/confluent-kafka-javascript#476: the KafkaJS-compatible consumer was reported to
 * stop calling eachBatch after a quiet period as long as the max poll interval, when a message
 * arrived as its fetch cache expired. The runtime's consumer (its own settings, a max poll
 * interval shortened to 6 s so that the test can wait it out) must take messages published
 * before, at and after the cache's expiry.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { consumerConfig, type RuntimeSettings } from '../../src/consumers/runtime.js';
import type { Admin, Consumer, Producer } from '../../src/kafka/client.js';
import { testKafka } from '../helpers/service.js';
import { createTopic } from '../helpers/stack.js';

// The test stack's brokers (local, shifted ports or containers), not a fixed address.
const kafka = testKafka();
const topic = `quiet-consumer-${randomUUID()}`;
const MAX_POLL_INTERVAL_MS = 6_000;
const settings: RuntimeSettings = {
  groupId: `quiet-consumer-${randomUUID()}`,
  maxInFlight: 1,
  partitionWindow: 100,
  replicaWindow: 100,
  commitIntervalMs: 0,
  maxCommitIntervalMs: 0,
  shutdownTimeoutMs: 1_000,
  sessionTimeoutMs: 6_000,
  transactionalId: 'unused',
  transactionTimeoutMs: 10_000,
};

// Unset until beforeAll opened them: afterAll closes what was opened.
let admin: Admin | undefined;
let producer: Producer | undefined;
let consumer: Consumer | undefined;
const seen: string[] = [];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function publish(values: string[]): Promise<void> {
  if (!producer) throw new Error('no producer');
  await producer.send({ topic, messages: values.map((value) => ({ key: value, value })) });
}

async function seenAll(values: string[], withinMs: number): Promise<boolean> {
  for (let waited = 0; waited < withinMs; waited += 100) {
    if (values.every((value) => seen.includes(value))) return true;
    await sleep(100);
  }
  return false;
}

beforeAll(async () => {
  admin = kafka.admin();
  await admin.connect();
  // Replication factor 1 given, not the broker's default (a container broker's may be larger).
  await createTopic(admin, topic, 2);
  producer = kafka.producer({ kafkaJS: { idempotent: true, acks: -1 } });
  await producer.connect();
  const reader = kafka.consumer({
    ...consumerConfig(settings, () => Promise.resolve()),
    'max.poll.interval.ms': MAX_POLL_INTERVAL_MS,
  });
  consumer = reader;
  await reader.connect();
  await reader.subscribe({ topics: [topic] });
  await reader.run({
    eachBatchAutoResolve: false,
    partitionsConsumedConcurrently: 4,
    eachBatch: async (payload) => {
      for (const message of payload.batch.messages) {
        seen.push(String(message.value));
        payload.resolveOffset(message.offset);
      }
      await Promise.resolve();
    },
  });
}, 30_000);

afterAll(async () => {
  await consumer?.disconnect();
  await producer?.disconnect();
  await admin?.deleteTopics({ topics: [topic] }).catch(() => undefined);
  await admin?.disconnect();
});

it('takes messages published after a quiet period past the max poll interval', async () => {
  await publish(['first-0', 'first-1', 'first-2']);
  expect(await seenAll(['first-0', 'first-1', 'first-2'], 20_000)).toBe(true);
  // Quiet until just before the cache's expiry (one max poll interval after the last fetch),
  // then messages on either side of it and well past it.
  await sleep(MAX_POLL_INTERVAL_MS - 500);
  const later: string[] = [];
  for (const [index, pauseMs] of [0, 250, 250, 500, 1_000, 2_000, MAX_POLL_INTERVAL_MS].entries()) {
    await sleep(pauseMs);
    const value = `later-${index}`;
    later.push(value);
    await publish([value]);
  }
  expect(await seenAll(later, 15_000)).toBe(true);
}, 60_000);
