import {
  CompressionTypes,
  Partitioners,
  type Kafka,
  type Producer,
  type TopicMessages,
  type Transaction,
} from 'kafkajs';
import type { OutputRecord } from '../producers/output-records.js';

/**
 * One transactional producer per process. Its transactional id is stable for a replica (see
 * config: KAFKA_TRANSACTIONAL_ID), so a restarted replica's InitProducerId aborts whatever its
 * previous incarnation left open; a replica that vanished without restarting leaves its open
 * transaction to the transaction timeout. Fencing a zombie is not the transactional id's job
 * here but the group generation's (KIP-447, through kafkajs as patched in patches/).
 */
export interface TransactionalProducer {
  /**
   * InitProducerId: aborts what an earlier producer with the same transactional id left open,
   * under a new epoch. Once connected, it resolves at once; after a failed connect, it tries again.
   */
  connect(): Promise<void>;
  /**
   * Sends the records and commits the offsets for the member in one transaction. When it
   * throws, the transaction's outcome is unknown (an EndTxn may have been lost, or may still
   * be on its way): the producer is replaced, and the next connect's InitProducerId bumps the
   * epoch, which ends that transaction (aborted, or committed if EndTxn got there first) and
   * fences every request of it still in flight.
   */
  commit(
    records: readonly OutputRecord[],
    offsets: readonly PartitionOffset[],
    member: GroupMember,
  ): Promise<void>;
  close(): Promise<void>;
}

export interface PartitionOffset {
  topic: string;
  partition: number;
  /** The next offset to read. */
  offset: string;
}

export interface GroupMember {
  groupId: string;
  generationId: number;
  memberId: string;
}

export interface TransactionalProducerSettings {
  transactionalId: string;
  transactionTimeoutMs: number;
}

/** Uncompressed bytes per produce call: well under the broker's default max.message.bytes. */
const CHUNK_BYTES = 512 * 1024;
/**
 * Produce calls from this size on are gzip-compressed (large results: embedded images).
 * Smaller ones, a lightly loaded round's few outcomes, go as they are: gzip there saved a few
 * hundred bytes and cost a hop through libuv's thread pool in every transaction.
 */
export const COMPRESS_FROM_BYTES = 16 * 1024;

export function compressionFor(bytes: number): CompressionTypes {
  return bytes >= COMPRESS_FROM_BYTES ? CompressionTypes.GZIP : CompressionTypes.None;
}

/** The process's `TransactionalProducer`, on kafkajs (patched: see patches/). */
export function createTransactionalProducer(
  kafka: Kafka,
  settings: TransactionalProducerSettings,
): TransactionalProducer {
  return new KafkaTransactionalProducer(kafka, settings);
}

/**
 * How long after a commit the next transaction is begun. Right after EndTxn answers, the
 * coordinator is still writing the committed transaction's markers and refuses the next
 * AddOffsetsToTxn with CONCURRENT_TRANSACTIONS; the kafkajs patch then sends it again after
 * 2 ms. Sent at once, 4,678 of about 5,100 begins in benchmark (c) were refused so, and 11 twice
 * (the retry after 2 ms went through): a round trip per transaction for nothing. Sent this much
 * later, the begin is ready no later than the refused one was, without it; a coordinator slower
 * to write its markers (replicated ones) still gets the patch's retries.
 */
export const BEGIN_AFTER_COMMIT_MS = 2;

/**
 * The next transaction is begun shortly after the last one committed (BEGIN_AFTER_COMMIT_MS),
 * with its AddOffsetsToTxn already sent: a round then waits for three round trips, not four.
 * The coordinator's transaction timeout runs from that request, so one left unused is aborted
 * after a quarter of it, and the next round begins its own.
 */
class KafkaTransactionalProducer implements TransactionalProducer {
  private producer: Producer;
  private connected: Promise<void> | undefined;
  private next:
    | {
        groupId: string;
        transaction: Promise<Transaction>;
        expiry: NodeJS.Timeout;
        /** Keeps the transaction from beginning, if it has not yet: it then fails, unbegun. */
        cancelBegin: () => void;
      }
    | undefined;
  /** An unused transaction being aborted: nothing begins until it has ended. */
  private ending: Promise<void> | undefined;
  private closed = false;

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
    member: GroupMember,
  ): Promise<void> {
    // AddOffsetsToTxn went ahead (begin); now the offsets (to the group coordinator) alongside
    // the outputs (AddPartitionsToTxn, then produce), then EndTxn once both have succeeded.
    const transaction = await this.take(member.groupId);
    try {
      const sent = await Promise.allSettled([
        sendOutputs(transaction, records),
        transaction.sendOffsets({
          consumerGroupId: member.groupId,
          topics: byTopic(offsets),
          consumerGroupMetadata: { generationId: member.generationId, memberId: member.memberId },
        }),
      ]);
      for (const outcome of sent) if (outcome.status === 'rejected') throw outcome.reason;
      await transaction.commit();
    } catch (error) {
      await this.replace();
      throw error;
    }
    this.beginNext(member.groupId);
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.endNext();
    if (this.connected) await this.producer.disconnect();
  }

  private create(): Producer {
    return this.kafka.producer({
      transactionalId: this.settings.transactionalId,
      idempotent: true,
      maxInFlightRequests: 1,
      transactionTimeout: this.settings.transactionTimeoutMs,
      // Java-compatible murmur2 on the key: the request's key lands where Java clients put it.
      createPartitioner: Partitioners.DefaultPartitioner,
    });
  }

  /**
   * A failed transaction is never ended with EndTxn(abort), nor retried: under the same epoch
   * (transaction.version 1, all kafkajs speaks) a request of it delayed past its timeout, an
   * EndTxn or a TxnOffsetCommit, could still land in the next transaction, and commit offsets
   * whose outputs were aborted (Jepsen's Bufstream analysis, 2024; KIP-890). A new producer with
   * the same transactional id starts clean: its InitProducerId bumps the epoch, which fences
   * every request of the old one, and aborts what it left open. It also mends kafkajs's
   * transaction state when a failed abort left it stuck ("Cannot call beginTransaction in state
   * ABORTING"), and a producer the coordinator fenced after the transaction timeout.
   */
  private async replace(): Promise<void> {
    this.next?.cancelBegin();
    this.dropNext();
    const old = this.producer;
    const wasConnected = this.connected;
    this.producer = this.create();
    this.connected = undefined;
    if (wasConnected) await old.disconnect().catch(() => undefined);
  }

  private async begin(groupId: string): Promise<Transaction> {
    await this.connect();
    const transaction = await this.producer.transaction().catch(async (error: unknown) => {
      await this.replace();
      throw error;
    });
    try {
      await transaction.addOffsets({ consumerGroupId: groupId });
    } catch (error) {
      await this.replace();
      throw error;
    }
    return transaction;
  }

  private beginNext(groupId: string): void {
    if (this.closed) return;
    let cancelBegin = (): void => undefined;
    const due = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        resolve(true);
      }, BEGIN_AFTER_COMMIT_MS);
      cancelBegin = () => {
        clearTimeout(timer);
        resolve(false);
      };
    });
    const transaction = due.then((begin) => {
      if (!begin) throw new Error('next transaction not begun: the producer closed or was replaced');
      return this.begin(groupId);
    });
    // The round that takes it sees a failure; one never taken is only dropped.
    transaction.catch(() => undefined);
    const expiry = setTimeout(() => void this.endNext(), this.settings.transactionTimeoutMs / 4);
    expiry.unref();
    this.next = { groupId, transaction, expiry, cancelBegin };
  }

  private async take(groupId: string): Promise<Transaction> {
    if (this.next?.groupId === groupId) {
      const { transaction } = this.next;
      this.dropNext();
      return transaction;
    }
    await this.endNext();
    if (this.ending) await this.ending;
    return this.begin(groupId);
  }

  private dropNext(): void {
    if (this.next) clearTimeout(this.next.expiry);
    this.next = undefined;
  }

  /** Aborts the unused next transaction, if any; one that failed to begin needs nothing more. */
  private endNext(): Promise<void> {
    const unused = this.next;
    this.dropNext();
    if (!unused) return Promise.resolve();
    unused.cancelBegin();
    const ending = unused.transaction
      .then(
        (transaction) => transaction.abort().catch(() => this.replace()),
        () => undefined,
      )
      .finally(() => {
        if (this.ending === ending) this.ending = undefined;
      });
    this.ending = ending;
    return ending;
  }
}

async function sendOutputs(transaction: Transaction, records: readonly OutputRecord[]): Promise<void> {
  for (const { topicMessages, bytes } of chunk(records)) {
    await transaction.sendBatch({ topicMessages, compression: compressionFor(bytes) });
  }
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

function chunk(records: readonly OutputRecord[]): { topicMessages: TopicMessages[]; bytes: number }[] {
  const chunks: { topicMessages: TopicMessages[]; bytes: number }[] = [];
  let current = new Map<string, TopicMessages>();
  let bytes = 0;
  for (const record of records) {
    if (bytes > 0 && bytes + record.value.length > CHUNK_BYTES) {
      chunks.push({ topicMessages: [...current.values()], bytes });
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
  if (current.size > 0) chunks.push({ topicMessages: [...current.values()], bytes });
  return chunks;
}

/**
 * Errors no retry mends: the cluster cannot take offsets with the group's generation (KIP-447),
 * or the commit was made without it. Going on would give up zombie fencing in silence.
 */
export function isUnrecoverable(error: unknown): boolean {
  for (let e = error, depth = 0; e && depth < 4; depth += 1) {
    const { name, originalError, cause } = e as { name?: unknown; originalError?: unknown; cause?: unknown };
    if (name === 'KafkaJSFencingUnsupported') return true;
    e = originalError ?? cause;
  }
  return false;
}

/** The group coordinator's answers to offsets from a member outside the current generation. */
const REFUSED_MEMBER_ERRORS = new Set([
  'ILLEGAL_GENERATION',
  'UNKNOWN_MEMBER_ID',
  'FENCED_INSTANCE_ID',
  'REBALANCE_IN_PROGRESS',
]);

export function isRefusedMember(error: unknown): boolean {
  return REFUSED_MEMBER_ERRORS.has(errorType(error));
}

/** Another producer took our transactional id, or the broker timed our transaction out. */
export function isProducerFenced(error: unknown): boolean {
  const type = errorType(error);
  return type === 'INVALID_PRODUCER_EPOCH' || type === 'PRODUCER_FENCED';
}

/** The broker's error name, also under kafkajs's retry wrappers (originalError, cause). */
function errorType(error: unknown): string {
  for (let e = error, depth = 0; e && depth < 4; depth += 1) {
    const { type, originalError, cause } = e as { type?: unknown; originalError?: unknown; cause?: unknown };
    if (typeof type === 'string') return type;
    e = originalError ?? cause;
  }
  return '';
}
