import { CompressionTypes, Partitioners, type Kafka, type Producer, type TopicMessages } from 'kafkajs';
import type { OutputRecord } from './output-records.js';

/**
 * One transactional producer per input partition, with a transactional id derived from the
 * group, topic and partition.
 *
 * Why per partition: kafkajs has no KIP-447 (it cannot attach the consumer group's
 * generation to sendOffsets), so a single producer per instance could not fence a zombie that
 * lost its partitions in a rebalance. With a stable id per input partition (Kafka's original
 * exactly-once design, before KIP-447), the new owner's InitProducerId fences the old owner:
 * the old owner's pending transaction is aborted and its next commit fails.
 */
export interface OffsetToCommit {
  groupId: string;
  topic: string;
  partition: number;
  /** The next offset to read. */
  offset: string;
}

export interface PartitionProducer {
  /** Registers the transactional id, fencing any earlier owner of the partition. */
  fence(): Promise<void>;
  /** Sends the records and commits the offset in one transaction. */
  commit(records: readonly OutputRecord[], offset: OffsetToCommit): Promise<void>;
  close(): Promise<void>;
}

/** Uncompressed bytes per produce call: well under the broker's default max.message.bytes. */
const CHUNK_BYTES = 512 * 1024;

export function createPartitionProducer(kafka: Kafka, transactionalId: string): PartitionProducer {
  const create = (): Producer =>
    kafka.producer({
      transactionalId,
      idempotent: true,
      maxInFlightRequests: 1,
      transactionTimeout: 60_000,
      // Java-compatible murmur2 on the key: the request's key lands where Java clients put it.
      createPartitioner: Partitioners.DefaultPartitioner,
    });
  let producer = create();
  let connected: Promise<void> | undefined;
  // connect() runs InitProducerId, which fences and aborts whatever the old one left open.
  const connect = (): Promise<void> => (connected ??= producer.connect());
  /**
   * After a broker outage a failed abort can leave kafkajs's transaction state stuck
   * ("Cannot call beginTransaction in state ABORTING"): a new producer with the same
   * transactional id starts clean, fencing the old one first.
   */
  const replace = async (): Promise<void> => {
    const old = producer;
    const wasConnected = connected;
    producer = create();
    connected = undefined;
    if (wasConnected) await old.disconnect().catch(() => undefined);
  };

  return {
    async fence() {
      await connect();
      // The first transaction() runs InitProducerId; an empty abort ends it without a request.
      const transaction = await producer.transaction();
      await transaction.abort();
    },
    async commit(records, offset) {
      await connect();
      const transaction = await producer.transaction().catch(async (error: unknown) => {
        await replace();
        throw error;
      });
      try {
        for (const topicMessages of chunk(records)) {
          await transaction.sendBatch({ topicMessages, compression: CompressionTypes.GZIP });
        }
        await transaction.sendOffsets({
          consumerGroupId: offset.groupId,
          topics: [
            { topic: offset.topic, partitions: [{ partition: offset.partition, offset: offset.offset }] },
          ],
        });
        await transaction.commit();
      } catch (error) {
        await transaction.abort().catch(replace);
        throw error;
      }
    },
    async close() {
      if (connected) await producer.disconnect();
    },
  };
}

function chunk(records: readonly OutputRecord[]): TopicMessages[][] {
  const chunks: TopicMessages[][] = [];
  let current = new Map<string, TopicMessages>();
  let bytes = 0;
  for (const record of records) {
    if (bytes > 0 && bytes + record.value.length > CHUNK_BYTES) {
      chunks.push([...current.values()]);
      current = new Map();
      bytes = 0;
    }
    let topicMessages = current.get(record.topic);
    if (!topicMessages) {
      topicMessages = { topic: record.topic, messages: [] };
      current.set(record.topic, topicMessages);
    }
    topicMessages.messages.push({ key: record.key, value: record.value, headers: record.headers });
    bytes += record.value.length;
  }
  if (current.size > 0) chunks.push([...current.values()]);
  return chunks;
}
