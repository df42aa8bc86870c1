/**
 * The runtime's fetch settings on the broker: a fetch returns at most FETCH_SETTINGS['fetch.max.bytes']
 * whatever the partition count, and the partitions past that bound are read by later fetches.
 * The sizes are the client's own: librdkafka's protocol debug lines ("Received FetchResponse
 * (v16, 1234 bytes, …)"), through the consumer's logger.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CONSUMER_SETTINGS, FETCH_SETTINGS } from '../../src/consumers/runtime.js';
import { logLevel, type Kafka, type Consumer } from '../../src/kafka/client.js';
import { createTopic, idempotentProducer, kafkaClient, randomName } from '../helpers/stack.js';

const PARTITIONS = 12;
/** 400 records of 1 KiB a partition: 12 partitions hold about three times one fetch's bound. */
const RECORDS_PER_PARTITION = 400;
const VALUE = Buffer.alloc(1024, 'x');
/** A response's own framing beyond its records (headers, per-partition fields). */
const FRAMING_BYTES = 16 * 1024;

let kafka: Kafka;
const closers: (() => Promise<void>)[] = [];

beforeAll(() => {
  kafka = kafkaClient(inject('kafkaBrokers'));
});

afterAll(async () => {
  for (const close of closers.reverse()) await close();
});

/** Connects a client, to be disconnected after the file's tests. */
async function opened<T extends { connect(): Promise<void>; disconnect(): Promise<void> }>(
  client: T,
): Promise<T> {
  await client.connect();
  closers.push(() => client.disconnect());
  return client;
}

describe('the runtime fetch settings', () => {
  it('bound each fetch to maxBytes at any partition count and still read every partition', async () => {
    const topic = randomName('it-fetch-bounds');
    await createTopic(await opened(kafka.admin()), topic, PARTITIONS);
    const producer = await opened(idempotentProducer(kafka));
    // Small record batches (50 records), so no batch is returned past a bound (KIP-74).
    for (let from = 0; from < RECORDS_PER_PARTITION; from += 50) {
      await producer.send({
        topic,
        messages: Array.from({ length: PARTITIONS * 50 }, (_, i) => ({
          partition: i % PARTITIONS,
          value: VALUE,
        })),
      });
    }

    const fetchSizes: number[] = [];
    const consumer = fetchWatchingConsumer((size) => {
      if (size > 1024) fetchSizes.push(size);
    });
    const read = new Map<number, number>();
    let total = 0;
    let resolveAll = (): void => undefined;
    const all = new Promise<void>((resolve) => (resolveAll = resolve));
    await opened(consumer);
    await consumer.subscribe({ topics: [topic] });
    await consumer.run({
      eachBatch: ({ batch }) => {
        read.set(batch.partition, (read.get(batch.partition) ?? 0) + batch.messages.length);
        total += batch.messages.length;
        if (total >= PARTITIONS * RECORDS_PER_PARTITION) resolveAll();
        return Promise.resolve();
      },
    });
    await all;

    expect([...read.entries()].sort(([a], [b]) => a - b)).toEqual(
      Array.from({ length: PARTITIONS }, (_, partition) => [partition, RECORDS_PER_PARTITION]),
    );
    // The records alone would fill three fetches at the bound.
    expect(fetchSizes.length).toBeGreaterThanOrEqual(3);
    expect(Math.max(...fetchSizes)).toBeLessThanOrEqual(FETCH_SETTINGS['fetch.max.bytes'] + FRAMING_BYTES);
  });
});

/**
 * A consumer with the runtime's fetch settings that tells `onFetch` the size of each fetch
 * response it receives.
 */
function fetchWatchingConsumer(onFetch: (bytes: number) => void): Consumer {
  const debug = (message: string): void => {
    const size = /Received FetchResponse \(v\d+, (\d+) bytes/.exec(message)?.[1];
    if (size !== undefined) onFetch(Number(size));
  };
  const logger = {
    debug,
    info: () => undefined,
    warn: () => undefined,
    error: () => undefined,
    namespace: () => logger,
    setLogLevel: () => undefined,
  };
  return kafka.consumer({
    kafkaJS: {
      groupId: randomName('it-fetch-bounds'),
      fromBeginning: true,
      readUncommitted: false,
      logger,
      logLevel: logLevel.DEBUG,
    },
    ...CONSUMER_SETTINGS,
    ...FETCH_SETTINGS,
    debug: 'protocol',
  });
}
