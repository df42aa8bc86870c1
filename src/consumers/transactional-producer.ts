import { KafkaJS } from '@confluentinc/kafka-javascript';
import type { Consumer, Kafka, Producer, TopicMessages } from '../kafka/client.js';
import type { OutputRecord } from '../producers/output-records.js';

/**
 * One transactional producer per process. Its transactional id is stable for a replica (see
 * config: KAFKA_TRANSACTIONAL_ID), so a restarted replica's InitProducerId aborts whatever its
 * previous incarnation left open; a replica that vanished without restarting leaves its open
 * transaction to the transaction timeout. Fencing a zombie is not the transactional id's job
 * here but the group generation's (KIP-447): the offsets go with the consumer's group metadata
 * (`sendOffsets({ consumer })`), and the group coordinator refuses them once that generation is
 * over.
 */
export interface TransactionalProducer {
  /**
   * InitProducerId: aborts what an earlier producer with the same transactional id left open,
   * under a new epoch. Once connected, it resolves at once; after a failed connect, it tries again.
   */
  connect(): Promise<void>;
  /**
   * Sends the records and commits the offsets for the group in one transaction. When it
   * throws, the transaction's outcome is unknown (an EndTxn may have been lost, or may still
   * be on its way): the producer is replaced, and the next connect's InitProducerId bumps the
   * epoch, which ends that transaction (aborted, or committed if EndTxn got there first) and
   * fences every request of it still in flight.
   */
  commit(
    records: readonly OutputRecord[],
    offsets: readonly PartitionOffset[],
    group: GroupHandle,
  ): Promise<void>;
  /**
   * Fences whatever the current producer still has in flight (a new producer, a new epoch):
   * for a round that outlived the revocation of its partitions.
   */
  fence(): Promise<void>;
  close(): Promise<void>;
}

export interface PartitionOffset {
  topic: string;
  partition: number;
  /** The next offset to read. */
  offset: string;
}

/**
 * The consumer whose group the offsets are committed to. `sendOffsets` reads the consumer's
 * group metadata (generation, member id) when it runs, so `owns` is asked right before: a round
 * whose partitions were revoked in the meantime must not commit their offsets under the next
 * generation, where they may belong to someone else.
 */
export interface GroupHandle {
  consumer: Consumer;
  owns(): boolean;
}

export interface TransactionalProducerSettings {
  transactionalId: string;
  transactionTimeoutMs: number;
}

/** The round's partitions were revoked before its offsets were sent: nothing was committed. */
export class RevokedBeforeCommit extends Error {
  constructor() {
    super("the round's partitions were revoked before its offsets were sent");
    this.name = 'RevokedBeforeCommit';
  }
}

/**
 * librdkafka's producer settings for the transactional producer. Batches are gzip-compressed at
 * level 1 (librdkafka sends a batch as it is when compressing does not make it smaller); stock
 * readers of every client can decompress gzip. Values up to the large-value topics' 2 MiB limit
 * (topic setup) must pass the client's own check.
 */
export const TRANSACTIONAL_PRODUCER_SETTINGS = {
  'compression.codec': 'gzip',
  'compression.level': 1,
  'message.max.bytes': 4 * 1024 * 1024,
  'linger.ms': 1,
} as const;

/** The process's `TransactionalProducer`, on Confluent's client (librdkafka). */
export function createTransactionalProducer(
  kafka: Kafka,
  settings: TransactionalProducerSettings,
): TransactionalProducer {
  return new KafkaTransactionalProducer(kafka, settings);
}

class KafkaTransactionalProducer implements TransactionalProducer {
  private producer: Producer;
  private connected: Promise<void> | undefined;

  constructor(
    private readonly kafka: Kafka,
    private readonly settings: TransactionalProducerSettings,
  ) {
    this.producer = this.create();
  }

  connect(): Promise<void> {
    if (this.connected) return this.connected;
    const connecting = this.producer.connect().catch(async (error: unknown) => {
      // A producer whose InitProducerId failed is not tried again: a new one is.
      if (this.connected === connecting) await this.replace();
      throw error;
    });
    this.connected = connecting;
    return connecting;
  }

  async commit(
    records: readonly OutputRecord[],
    offsets: readonly PartitionOffset[],
    group: GroupHandle,
  ): Promise<void> {
    await this.connect();
    const producer = this.producer;
    try {
      const transaction = await producer.transaction();
      const topicMessages = byTopicMessages(records);
      const sent = topicMessages.length > 0 ? transaction.sendBatch({ topicMessages }) : Promise.resolve([]);
      // Asked in the same turn as sendOffsets reads the group metadata (see GroupHandle).
      if (!group.owns()) {
        await sent.catch(() => undefined);
        throw new RevokedBeforeCommit();
      }
      const offsetsSent = transaction.sendOffsets({ consumer: group.consumer, topics: byTopic(offsets) });
      const outcomes = await Promise.allSettled([sent, offsetsSent]);
      for (const outcome of outcomes) if (outcome.status === 'rejected') throw outcome.reason;
      await transaction.commit();
    } catch (error) {
      await this.replace();
      throw error;
    }
  }

  async fence(): Promise<void> {
    await this.replace();
    // InitProducerId now, not at the next round: the new epoch ends the old transaction at once,
    // and the partitions' new owner need not wait for the transaction timeout.
    await this.connect().catch(() => undefined);
  }

  async close(): Promise<void> {
    if (this.connected) await this.producer.disconnect();
  }

  private create(): Producer {
    return this.kafka.producer({
      kafkaJS: {
        transactionalId: this.settings.transactionalId,
        idempotent: true,
        maxInFlightRequests: 5,
        transactionTimeout: this.settings.transactionTimeoutMs,
        acks: -1,
      },
      ...TRANSACTIONAL_PRODUCER_SETTINGS,
    });
  }

  /**
   * A failed transaction is never ended with EndTxn(abort), nor retried: under the same epoch
   * (librdkafka sends EndTxn v1: no KIP-890 part 2 yet) a request of it delayed past its timeout,
   * an EndTxn or a TxnOffsetCommit, could still land in the next transaction, and commit offsets
   * whose outputs were aborted (Jepsen's Bufstream analysis, 2024; KIP-890). A new producer with
   * the same transactional id starts clean: its InitProducerId bumps the epoch, which fences
   * every request of the old one, and aborts what it left open. It also mends a producer that
   * librdkafka put in a fatal state (fenced after the transaction timeout).
   */
  private async replace(): Promise<void> {
    const old = this.producer;
    const wasConnected = this.connected;
    this.producer = this.create();
    this.connected = undefined;
    // Bounded: a producer librdkafka holds in a fatal state may take its time to close, and the
    // new one (a new epoch) fences it whatever it still does.
    if (wasConnected) await settledWithin(old.disconnect(), DISCONNECT_WAIT_MS);
  }
}

/** How long a replaced producer may take to close before it is left to itself. */
const DISCONNECT_WAIT_MS = 5_000;

async function settledWithin(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  await Promise.race([promise.catch(() => undefined), waited]);
  clearTimeout(timer);
}

function byTopicMessages(records: readonly OutputRecord[]): TopicMessages[] {
  const topics = new Map<string, TopicMessages>();
  for (const record of records) {
    let topicMessages = topics.get(record.topic);
    if (!topicMessages) {
      topicMessages = { topic: record.topic, messages: [] };
      topics.set(record.topic, topicMessages);
    }
    topicMessages.messages.push({ key: record.key, value: record.value, headers: record.headers });
  }
  return [...topics.values()];
}

function byTopic(
  offsets: readonly PartitionOffset[],
): { topic: string; partitions: { partition: number; offset: string }[] }[] {
  const topics = new Map<string, { partition: number; offset: string }[]>();
  for (const { topic, partition, offset } of offsets) {
    let partitions = topics.get(topic);
    if (!partitions) {
      partitions = [];
      topics.set(topic, partitions);
    }
    partitions.push({ partition, offset });
  }
  return [...topics].map(([topic, partitions]) => ({ topic, partitions }));
}

const { ErrorCodes } = KafkaJS;

/** The group coordinator's answers to offsets from a member outside the current generation. */
const REFUSED_MEMBER_CODES = new Set<number>([
  ErrorCodes.ERR_ILLEGAL_GENERATION,
  ErrorCodes.ERR_UNKNOWN_MEMBER_ID,
  ErrorCodes.ERR_FENCED_INSTANCE_ID,
  ErrorCodes.ERR_REBALANCE_IN_PROGRESS,
]);

/** Offsets refused because this member's generation is over, or its partitions were revoked. */
export function isRefusedMember(error: unknown): boolean {
  if (error instanceof RevokedBeforeCommit) return true;
  const code = errorCode(error);
  return code !== undefined && REFUSED_MEMBER_CODES.has(code);
}

/** Another producer took our transactional id, or the broker timed our transaction out. */
export function isProducerFenced(error: unknown): boolean {
  const code = errorCode(error);
  return (
    code === ErrorCodes.ERR_INVALID_PRODUCER_EPOCH ||
    code === ErrorCodes.ERR_PRODUCER_FENCED ||
    code === ErrorCodes.ERR__FENCED
  );
}

/** librdkafka's error code of a client error, also under `cause`. */
export function errorCode(error: unknown): number | undefined {
  for (let e = error, depth = 0; e && depth < 4; depth += 1) {
    const { code, cause } = e as { code?: unknown; cause?: unknown };
    if (typeof code === 'number') return code;
    e = cause;
  }
  return undefined;
}
