import { CompressionTypes, Partitioners, type Kafka, type Producer, type TopicMessages } from 'kafkajs';
import type { Logger } from 'pino';
import type { OutputRecord } from '../producers/output-records.js';
import type { PartitionState } from './partition-state.js';
import type { PauseControl } from './pause-control.js';

/**
 * The end of a request's path: its outcome committed with its input offset. The commit loop
 * below, then the partition's transactional producer it commits with.
 *
 * Group commit: a partition's contiguous completed prefix is committed with its outputs in one
 * transaction on the partition's own producer as soon as the partition has one and its previous
 * transaction has finished, at most one transaction per partition per `commitIntervalMs`. Under
 * load, what completes while a transaction runs waits for it and joins the next one (commits
 * batch by themselves); lightly loaded, an outcome is committed right away instead of waiting
 * for a fixed tick. Nothing runs while nothing completes. A failed commit is carried to the next
 * transaction; repeated failures are fatal, a fenced producer revokes the partition.
 */
export interface CommitLoopDeps {
  settings: { groupId: string; partitionWindow: number; commitIntervalMs: number };
  /** The partitions held now. */
  partitions(): Iterable<PartitionState>;
  pauses: Pick<PauseControl, 'resume'>;
  logger: Logger;
  metrics?: { committed(count: number): void } | undefined;
  /** The partition's producer was fenced: another instance owns it now. */
  onFenced(state: PartitionState): void;
  onFatal(error: unknown): void;
}

export const MAX_COMMIT_FAILURES = 5;
/** Wait before trying a failed transaction again (it is fatal after MAX_COMMIT_FAILURES). */
const RETRY_DELAY_MS = 100;

export class CommitLoop {
  /** Partitions with a transaction scheduled and not started yet. */
  private readonly due = new Map<PartitionState, NodeJS.Timeout>();
  private readonly lastStartedAt = new WeakMap<PartitionState, number>();
  private stopped = true;

  constructor(private readonly deps: CommitLoopDeps) {}

  start(): void {
    this.stopped = false;
  }

  /** No transaction is scheduled after this; one already started finishes. */
  stop(): void {
    this.stopped = true;
    for (const timer of this.due.values()) clearTimeout(timer);
    this.due.clear();
  }

  /** The last commit at shutdown, once in-flight work has finished or been abandoned. */
  async commitFinal(): Promise<void> {
    this.stop();
    // A transaction under way at the stop leaves what completed meanwhile for one more.
    for (let round = 0; round <= MAX_COMMIT_FAILURES && this.hasWork(); round += 1) await this.commitAll();
  }

  private hasWork(): boolean {
    for (const state of this.deps.partitions())
      if (!state.isRevoked() && (state.carry || state.tracker.hasReadyPrefix())) return true;
    return false;
  }

  /** A message of the partition completed: its prefix is committed as soon as allowed. */
  completed(state: PartitionState, delayMs = 0): void {
    if (this.stopped || state.committing || this.due.has(state) || state.isRevoked()) return;
    if (!state.carry && !state.tracker.hasReadyPrefix()) return;
    const spacing = (this.lastStartedAt.get(state) ?? 0) + this.deps.settings.commitIntervalMs - Date.now();
    const timer = setTimeout(
      () => {
        this.due.delete(state);
        void this.commitPartition(state);
      },
      Math.max(0, spacing, delayMs),
    );
    this.due.set(state, timer);
  }

  async commitAll(): Promise<void> {
    await Promise.all([...this.deps.partitions()].map((state) => this.commitPartition(state)));
  }

  commitPartition(state: PartitionState): Promise<void> {
    if (state.committing) return state.committing;
    if (state.isRevoked()) return Promise.resolve();
    const prefix = state.takePrefix();
    if (!prefix) return Promise.resolve();
    const { groupId, partitionWindow } = this.deps.settings;
    const offset = { groupId, topic: state.topic, partition: state.partition, offset: prefix.nextOffset };
    const startedAt = Date.now();
    this.lastStartedAt.set(state, startedAt);
    let retryAfterMs = 0;
    state.committing = state.producer
      .commit(prefix.outputs, offset)
      .then(() => {
        state.commitFailures = 0;
        state.committed(prefix.nextOffset, startedAt);
        this.deps.metrics?.committed(prefix.count);
        if (state.tracker.size < partitionWindow)
          this.deps.pauses.resume(state.topic, state.partition, 'window');
      })
      .catch((error: unknown) => {
        this.failed(state, prefix, error);
        retryAfterMs = RETRY_DELAY_MS;
      })
      .finally(() => {
        state.committing = undefined;
        // What completed meanwhile (or a failed prefix) goes in the next transaction.
        this.completed(state, retryAfterMs);
      });
    return state.committing;
  }

  private failed(state: PartitionState, prefix: PartitionState['carry'], error: unknown): void {
    if (isFenced(error)) {
      this.deps.logger.warn(
        { topic: state.topic, partition: state.partition },
        'producer fenced; partition moved to another instance',
      );
      this.deps.onFenced(state);
      return;
    }
    state.carry = prefix;
    state.commitFailures += 1;
    this.deps.logger.error(
      { err: error, failures: state.commitFailures, topic: state.topic, partition: state.partition },
      'transaction failed',
    );
    if (state.commitFailures >= MAX_COMMIT_FAILURES) this.deps.onFatal(error);
  }
}

function isFenced(error: unknown): boolean {
  const type = (error as { type?: unknown } | null)?.type;
  return (
    type === 'INVALID_PRODUCER_EPOCH' ||
    type === 'PRODUCER_FENCED' ||
    type === 'TRANSACTIONAL_ID_AUTHORIZATION_FAILED'
  );
}

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
