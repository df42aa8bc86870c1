/**
 * Proves the shared test stack: the project's Kafka client (src/kafka/client.ts) against the real
 * broker (plain, idempotent and transactional producers, read_committed consumers), the schema
 * registry's Confluent API with @kafkajs/confluent-schema-registry, and Redis.
 */
import { SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import { Redis } from 'ioredis';
import { KafkaJS } from '@confluentinc/kafka-javascript';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  openGroupOffsetsReader,
  type Admin,
  type Consumer,
  type ConsumerConstructorConfig,
  type Kafka,
  type Message,
  type Producer,
  type ProducerConstructorConfig,
} from '../../src/kafka/client.js';
import { createTopic, kafkaClient, randomName } from '../helpers/stack.js';

/** The consumer's own settings a test changes (its group, its isolation level). */
type ReaderConfig = Partial<NonNullable<ConsumerConstructorConfig['kafkaJS']>>;

interface Received {
  topic: string;
  partition: number;
  offset: string;
  key: string | null;
  value: Buffer | null;
}

let kafka: Kafka;
let admin: Admin;
/** Producers and consumers opened by a test; closed after it, whatever happened. */
const opened: (Producer | Consumer)[] = [];

beforeAll(async () => {
  kafka = kafkaClient(inject('kafkaBrokers'));
  admin = kafka.admin();
  await admin.connect();
});

afterEach(async () => {
  await Promise.allSettled(opened.splice(0).map((c) => c.disconnect()));
});

afterAll(async () => {
  await admin.disconnect();
});

/** Idempotent unless told otherwise: the tests count what they wrote (a retried send is kept once). */
async function producer(config: NonNullable<ProducerConstructorConfig['kafkaJS']> = {}): Promise<Producer> {
  const p = kafka.producer({ kafkaJS: { idempotent: true, acks: -1, ...config } });
  opened.push(p);
  await p.connect();
  return p;
}

interface Reader {
  consumer: Consumer;
  /** Everything received so far, in arrival order. */
  received: Received[];
  /** Resolves with `received` once `done(received)` holds; rejects after `timeoutMs`. */
  until(done: (received: Received[]) => boolean, timeoutMs?: number): Promise<Received[]>;
}

/** Starts a consumer (no auto-commit, read_committed) that reads `topic` from the beginning. */
async function read(topic: string, config: ReaderConfig = {}): Promise<Reader> {
  // Short long-polls: disconnect waits for the fetch in flight, and the tests stay fast.
  const consumer = kafka.consumer({
    kafkaJS: {
      groupId: randomName('it-reader'),
      fromBeginning: true,
      autoCommit: false,
      readUncommitted: false,
      maxWaitTimeInMs: 250,
      ...config,
    },
  });
  opened.push(consumer);
  await consumer.connect();
  await consumer.subscribe({ topics: [topic] });
  const received: Received[] = [];
  const listeners = new Set<() => void>();
  let failure: Error | undefined;
  consumer
    .run({
      eachMessage: ({ topic: t, partition, message }) => {
        received.push({
          topic: t,
          partition,
          offset: message.offset,
          key: message.key?.toString() ?? null,
          value: message.value,
        });
        listeners.forEach((l) => {
          l();
        });
        return Promise.resolve();
      },
    })
    .catch((err: unknown) => {
      failure = err instanceof Error ? err : new Error(String(err));
      listeners.forEach((l) => {
        l();
      });
    });

  return {
    consumer,
    received,
    until(done, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const check = (): void => {
          if (failure) finish(failure);
          else if (done(received)) finish();
        };
        const timer = setTimeout(() => {
          finish(
            new Error(
              `timed out on ${topic} after ${received.length} messages: ${values(received).join(', ')}`,
            ),
          );
        }, timeoutMs);
        const finish = (err?: Error): void => {
          clearTimeout(timer);
          listeners.delete(check);
          if (err) reject(err);
          else resolve(received);
        };
        listeners.add(check);
        check();
      });
    },
  };
}

async function consumeUntil(
  topic: string,
  done: (received: Received[]) => boolean,
  config: ReaderConfig = {},
): Promise<Received[]> {
  return (await read(topic, config)).until(done);
}

const values = (msgs: Received[]): string[] => msgs.map((m) => m.value?.toString() ?? '');
const text = (...vs: string[]): Message[] => vs.map((value) => ({ key: 'k', value }));

describe('kafka', () => {
  it('produces and consumes through the broker', async () => {
    const topic = randomName('it-plain');
    await createTopic(admin, topic, 3);
    const p = await producer();
    await p.send({
      topic,
      messages: [
        { key: 'a', value: 'one', headers: { 'content-type': 'application/json' } },
        { key: 'b', value: 'two' },
        { key: 'c', value: 'three' },
      ],
    });

    const got = await consumeUntil(topic, (r) => r.length >= 3);
    expect(values(got).sort()).toEqual(['one', 'three', 'two']);
    expect(new Set(got.map((m) => m.key))).toEqual(new Set(['a', 'b', 'c']));
    const offsets = await admin.fetchTopicOffsets(topic);
    expect(offsets.reduce((n, o) => n + Number(o.high), 0)).toBe(3);
  });

  it('writes each message once with an idempotent producer', async () => {
    const topic = randomName('it-idempotent');
    await createTopic(admin, topic, 1);
    const p = await producer({ idempotent: true, acks: -1 });
    for (let batch = 0; batch < 3; batch++) {
      await p.send({ topic, messages: text(`m${batch}a`, `m${batch}b`) });
    }
    const got = await consumeUntil(topic, (r) => r.length >= 6);
    expect(values(got)).toEqual(['m0a', 'm0b', 'm1a', 'm1b', 'm2a', 'm2b']);
    const [partition] = await admin.fetchTopicOffsets(topic);
    expect(partition?.high).toBe('6');
  });
});

describe('kafka transactions', () => {
  it('commits output and consumer offsets atomically (consume-transform-produce)', async () => {
    const input = randomName('it-tx-in');
    const output = randomName('it-tx-out');
    const groupId = randomName('it-tx-group');
    await createTopic(admin, input, 1);
    await createTopic(admin, output, 1);
    const plain = await producer();
    await plain.send({ topic: input, messages: text('a', 'b', 'c') });

    // Read the input as the service would: no auto-commit, offsets go into the transaction,
    // with the reading member's generation (KIP-447).
    const reader = await read(input, { groupId });
    const inputMessages = await reader.until((r) => r.length >= 3);
    const tx = await producer({ transactionalId: randomName('it-tx'), idempotent: true });
    const transaction = await tx.transaction();
    await transaction.send({
      topic: output,
      messages: inputMessages.map((m) => ({ key: m.key, value: `${m.value?.toString() ?? ''}!` })),
    });
    const last = inputMessages[inputMessages.length - 1]!;
    const inputOffsets = [
      { topic: input, partitions: [{ partition: 0, offset: String(Number(last.offset) + 1) }] },
    ];
    // Fail closed: without the member (its generation) the group could not refuse a zombie, so
    // offsets named by the group id alone are refused.
    const unfenced = await transaction
      .sendOffsets({ consumerGroupId: groupId, topics: inputOffsets } as unknown as Parameters<
        Producer['sendOffsets']
      >[0])
      .catch((error: unknown) => error);
    expect((unfenced as KafkaJS.KafkaJSError).code).toBe(KafkaJS.ErrorCodes.ERR__INVALID_ARG);
    await transaction.sendOffsets({ consumer: reader.consumer, topics: inputOffsets });
    await transaction.commit();

    const committed = await consumeUntil(output, (r) => r.length >= 3);
    expect(values(committed)).toEqual(['a!', 'b!', 'c!']);
    // Read as the service reads its group's offsets (the admin client's fetchOffsets can crash
    // the process: src/kafka/client.ts).
    const offsets = await openGroupOffsetsReader({ brokers: inject('kafkaBrokers').split(',') }, groupId, {
      stable: false,
      timeoutMs: 10_000,
    });
    try {
      const [groupOffsets] = await offsets.fetchOffsets({ groupId, topics: [input] });
      expect(groupOffsets?.partitions.map(({ partition, offset }) => ({ partition, offset }))).toEqual([
        { partition: 0, offset: '3' },
      ]);
    } finally {
      await offsets.close();
    }
  });

  it('hides aborted messages from read_committed consumers', async () => {
    const topic = randomName('it-tx-abort');
    await createTopic(admin, topic, 1);
    const tx = await producer({ transactionalId: randomName('it-tx'), idempotent: true });

    const first = await tx.transaction();
    await first.send({ topic, messages: text('committed-1') });
    await first.commit();

    const aborted = await tx.transaction();
    await aborted.send({ topic, messages: text('aborted-1', 'aborted-2') });
    await aborted.abort();

    const second = await tx.transaction();
    await second.send({ topic, messages: text('committed-2') });
    await second.commit();

    // read_committed, as the service's readers are.
    const committed = await consumeUntil(topic, (r) => values(r).includes('committed-2'));
    expect(values(committed)).toEqual(['committed-1', 'committed-2']);

    // The aborted records are in the log: a read_uncommitted consumer sees them.
    const everything = await consumeUntil(topic, (r) => values(r).includes('committed-2'), {
      readUncommitted: true,
    });
    expect(values(everything)).toEqual(['committed-1', 'aborted-1', 'aborted-2', 'committed-2']);
  });

  it('keeps an open transaction invisible until it commits', async () => {
    const topic = randomName('it-tx-open');
    await createTopic(admin, topic, 2);
    const tx = await producer({ transactionalId: randomName('it-tx'), idempotent: true });
    const transaction = await tx.transaction();
    await transaction.send({ topic, messages: [{ key: 'k', value: 'pending', partition: 0 }] });

    const uncommitted = await consumeUntil(topic, (r) => r.length >= 1, { readUncommitted: true });
    expect(values(uncommitted)).toEqual(['pending']);

    // read_committed stops at the last stable offset: nothing until the commit below. A plain
    // message on the other partition, written after the pending one, is read meanwhile (the
    // one broker answers both partitions in the same fetches), and a while longer, not that.
    const plain = await producer();
    await plain.send({ topic, messages: [{ key: 'k', value: 'plain', partition: 1 }] });
    const reader = await read(topic);
    await reader.until((r) => r.length >= 1);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(values(reader.received)).toEqual(['plain']);
    await transaction.commit();
    expect(values(await reader.until((r) => r.length >= 2))).toEqual(['plain', 'pending']);
  });
});

describe('schema registry (Confluent API)', () => {
  it('registers a JSON Schema, reads it back and round-trips the wire format through Kafka', async () => {
    const registry = new SchemaRegistry({ host: inject('schemaRegistryUrl') });
    const topic = randomName('it-schema');
    const subject = `${topic}-value`;
    const schema = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { requestId: { type: 'string', minLength: 1 }, attempts: { type: 'integer' } },
      required: ['requestId'],
      additionalProperties: false,
    };
    const { id } = await registry.register(
      { type: SchemaType.JSON, schema: JSON.stringify(schema) },
      { subject },
    );
    expect(id).toBeGreaterThan(0);
    expect(await registry.getLatestSchemaId(subject)).toBe(id);

    // Read it back over plain HTTP, as another client would.
    const res = await fetch(`${inject('schemaRegistryUrl')}/subjects/${subject}/versions/latest`);
    expect(res.status).toBe(200);
    const latest = (await res.json()) as { id: number; schemaType?: string; schema: string };
    expect(latest.id).toBe(id);
    expect(latest.schemaType).toBe('JSON');
    expect(JSON.parse(latest.schema)).toEqual(schema);

    const payload = { requestId: 'r-1', attempts: 2 };
    const encoded = await registry.encode(id, payload);
    expect(encoded[0]).toBe(0); // magic byte
    expect(encoded.readInt32BE(1)).toBe(id);
    await expect(registry.encode(id, { attempts: 1 })).rejects.toThrow();

    await createTopic(admin, topic, 1);
    const p = await producer();
    await p.send({ topic, messages: [{ key: 'r-1', value: encoded }] });
    const [msg] = await consumeUntil(topic, (r) => r.length >= 1);
    expect(await registry.decode(msg!.value!)).toEqual(payload);
  });
});

describe('redis', () => {
  it('answers commands', async () => {
    const redis = new Redis(inject('redisUrl'), { lazyConnect: true, maxRetriesPerRequest: 1 });
    try {
      await redis.connect();
      const key = randomName('it-key');
      await redis.set(key, 'v', 'PX', 10_000);
      expect(await redis.get(key)).toBe('v');
      await redis.del(key);
    } finally {
      redis.disconnect();
    }
  });
});
