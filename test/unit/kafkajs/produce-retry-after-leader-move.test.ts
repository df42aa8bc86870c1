/**
 * A produce retried after a partition's leader moved reaches the new leader (kafkajs patch 009,
 * producer/sendMessages.js). Unpatched, kafkajs kept the answers of the brokers that had
 * answered and, on the retry, sent only to brokers without one: when the failed partition's new
 * leader was a broker that had already answered for other partitions, the partition was sent
 * nowhere and the send resolved as a success. Inside a transaction, that committed the request
 * offsets without their outcomes: requests lost on a three-node cluster when a broker died
 * (issue 37). Here a stand-in cluster moves partition 1 from node 2 to node 1 after node 2
 * refuses it.
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);

interface ProduceRequest {
  topicData: { topic: string; partitions: { partition: number; messages: { value: string }[] }[] }[];
}
type SendMessages = (args: {
  acks: number;
  timeout: number;
  compression?: number;
  topicMessages: { topic: string; messages: { key: string; value: string }[] }[];
}) => Promise<{ topicName: string; partition: number }[]>;
type CreateSendMessages = (deps: Record<string, unknown>) => SendMessages;
const createSendMessages = require('kafkajs/src/producer/sendMessages') as CreateSendMessages;
const createRetry = require('kafkajs/src/retry') as (options: Record<string, number>) => unknown;
const { KafkaJSProtocolError } = require('kafkajs/src/errors') as {
  KafkaJSProtocolError: new (e: { type: string; code: number; retriable: boolean; message: string }) => Error;
};

const TOPIC = 'results';

function standInCluster() {
  /** partition -> leader node */
  const leaders = new Map<number, number>([
    [0, 1],
    [1, 2],
  ]);
  const written: { node: number; partition: number; value: string }[] = [];
  let node2Refuses = true;
  const broker = (node: number) => ({
    nodeId: node,
    produce: ({ topicData }: ProduceRequest) => {
      for (const { partitions } of topicData)
        for (const { partition } of partitions)
          if (leaders.get(partition) !== node || (node === 2 && node2Refuses)) {
            return Promise.reject(
              new KafkaJSProtocolError({
                type: 'NOT_LEADER_FOR_PARTITION',
                code: 6,
                retriable: true,
                message: 'This server is not the leader for that topic-partition',
              }),
            );
          }
      for (const { partitions } of topicData)
        for (const { partition, messages } of partitions)
          for (const { value } of messages) written.push({ node, partition, value });
      return Promise.resolve({
        topics: topicData.map(({ topic, partitions }) => ({
          topicName: topic,
          partitions: partitions.map(({ partition }) => ({ partition, errorCode: 0, baseOffset: '0' })),
        })),
      });
    },
  });
  const brokers = new Map([
    [1, broker(1)],
    [2, broker(2)],
  ]);
  const cluster = {
    targetTopics: new Set<string>(),
    addMultipleTargetTopics: () => Promise.resolve(),
    refreshMetadataIfNecessary: () => Promise.resolve(),
    // Node 2 died: its partition's leadership moved to node 1, which already answered.
    refreshMetadata: () => {
      leaders.set(1, 1);
      node2Refuses = false;
      return Promise.resolve();
    },
    isConnected: () => true,
    removeBroker: () => undefined,
    findTopicPartitionMetadata: () =>
      [...leaders].map(([partitionId, leader]) => ({ partitionId, leader, partitionErrorCode: 0 })),
    findLeaderForPartitions: (_topic: string, partitions: string[]) => {
      const result: Record<number, number[]> = {};
      for (const id of partitions.map(Number)) (result[leaders.get(id)!] ??= []).push(id);
      return result;
    },
    findBroker: ({ nodeId }: { nodeId: string }) => Promise.resolve(brokers.get(Number(nodeId))),
  };
  return { cluster, written };
}

const eosManager = {
  isTransactional: () => false,
  acquireBrokerLock: () => Promise.resolve(),
  releaseBrokerLock: () => Promise.resolve(),
  getSequence: () => 0,
  updateSequence: () => undefined,
  getProducerId: () => -1,
  getProducerEpoch: () => 0,
  getTransactionalId: () => undefined,
};

describe('a produce retried after a leader moved', () => {
  it('sends the moved partition to its new leader, even one that already answered for others', async () => {
    const { cluster, written } = standInCluster();
    const logger = { debug: () => undefined, error: () => undefined, warn: () => undefined };
    const sendMessages = createSendMessages({
      logger,
      cluster,
      // The message's key is its partition here.
      partitioner: ({ message }: { message: { key: string } }) => Number(message.key),
      eosManager,
      retrier: createRetry({ retries: 3, initialRetryTime: 1, maxRetryTime: 5 }),
    });

    const answers = await sendMessages({
      acks: -1,
      timeout: 1_000,
      topicMessages: [
        {
          topic: TOPIC,
          messages: [
            { key: '0', value: 'outcome for partition 0' },
            { key: '1', value: 'outcome for partition 1' },
          ],
        },
      ],
    });

    expect(written).toEqual([
      { node: 1, partition: 0, value: 'outcome for partition 0' },
      { node: 1, partition: 1, value: 'outcome for partition 1' },
    ]);
    expect(answers.map((a) => a.partition).sort()).toEqual([0, 1]);
  });
});
