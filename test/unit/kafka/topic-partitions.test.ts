import type { KafkaConsumer, LibrdKafkaError, Metadata } from '@confluentinc/kafka-javascript';
import { describe, expect, it } from 'vitest';
import { topicPartitions } from '../../../src/kafka/client.js';

/** A client whose getMetadata answers `error` or `metadata`, recording what it was asked. */
function client(answer: { error?: LibrdKafkaError; metadata?: Metadata }): Pick<
  KafkaConsumer,
  'getMetadata'
> & {
  asked: unknown[];
} {
  const asked: unknown[] = [];
  return {
    asked,
    getMetadata: (options, cb) => {
      asked.push(options);
      cb?.(answer.error as LibrdKafkaError, answer.metadata as Metadata);
    },
  };
}

const metadata = (topics: { name: string; partitions: number[] }[]): Metadata => ({
  orig_broker_id: 2,
  orig_broker_name: '127.0.0.1:9102/2',
  brokers: [],
  topics: topics.map(({ name, partitions }) => ({
    name,
    partitions: partitions.map((id) => ({ id, leader: 2, replicas: [2], isrs: [2] })),
  })),
});

describe('topicPartitions', () => {
  it('asks for the one topic within the bound and gives its partition ids in order', async () => {
    const fake = client({ metadata: metadata([{ name: 'p.errors', partitions: [2, 0, 1] }]) });
    expect(await topicPartitions(fake, 'p.errors', 5_000)).toEqual([0, 1, 2]);
    expect(fake.asked).toEqual([{ topic: 'p.errors', timeout: 5_000 }]);
  });

  it('fails for a topic the answer does not hold, or holds with no partitions', async () => {
    await expect(
      topicPartitions(
        client({ metadata: metadata([{ name: 'other', partitions: [0] }]) }),
        'p.errors',
        5_000,
      ),
    ).rejects.toThrow("topic p.errors is not in the cluster's metadata");
    await expect(
      topicPartitions(
        client({ metadata: metadata([{ name: 'p.errors', partitions: [] }]) }),
        'p.errors',
        5_000,
      ),
    ).rejects.toThrow("topic p.errors is not in the cluster's metadata");
  });

  it("fails with the client's error and its code", async () => {
    const error = Object.assign(new Error('Local: Timed out'), { code: -185 }) as unknown as LibrdKafkaError;
    await expect(topicPartitions(client({ error }), 'p.errors', 5_000)).rejects.toMatchObject({
      message: 'Local: Timed out',
      code: -185,
    });
  });
});
