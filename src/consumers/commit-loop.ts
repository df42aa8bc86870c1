import {
  CompressionTypes,
  Partitioners,
  type Kafka,
  type Producer,
  type TopicMessages,
  type Transaction,
} from 'kafkajs';
import type { Logger } from 'pino';
import type { OutputRecord } from '../producers/output-records.js';
import type { DrainedPrefix } from './offset-tracker.js';
import type { PartitionState } from './partition-state.js';
import type { PauseControl } from './pause-control.js';
import type { TakeWindow } from './take-window.js';

/**
 * The end of a request's path: its outcome committed with its input offset. The commit loop
 * below, then the process's transactional producer it commits with.
 *
 * Group commit: one transaction at a time for the whole process carries the outputs and the
 * next offsets of every partition with a contiguous completed prefix. A round starts once some
 * partition has completed work and the previous round has finished, and not sooner than the
 * spacing after the previous round's start: under load, what completes while a round runs joins
 * the next one, so rounds batch by themselves; after a quiet spell an outcome is committed right
 * away. Nothing runs while nothing completes.
 *
 * The spacing follows the work waiting to be committed: a tenth of the shortest time any of it
 * took (from when the service began on the request to its outcome), at least
 * `commitIntervalMs` and at most `maxCommitIntervalMs`. A transaction costs the service and the
 * broker about the same whatever it carries; behind a 50 ms vendor the spacing stays at its
 * floor, behind calls that took seconds (a slow vendor, a queue under its rate limit) it grows
 * to its ceiling, a small share of what the request had already taken.
 *
 * Zombie fencing (KIP-447): the offsets carry the group generation and member id this
 * instance holds its partitions under; the group coordinator refuses them once that generation
 * is over, the transaction aborts, and the round's partitions are read again from their
 * committed offsets (if they are still ours).
 *
 * A failed round is carried to the next, after a backoff that grows with each failure in a row
 * (with jitter). Its producer is replaced first (see `TransactionalProducer.commit`), so the
 * group's stable offsets then tell whether the failed transaction committed after all. A
 * broker failover (a leader election, a coordinator moving) takes seconds to tens of seconds:
 * failures are fatal only once none has succeeded for `failureBudgetMs`, or at once when the
 * error says the cluster can never take our commits (`isUnrecoverable`).
 */
export interface CommitLoopDeps {
  settings: {
    commitIntervalMs: number;
    maxCommitIntervalMs: number;
    /** How long rounds may fail in a row before it is fatal (COMMIT_FAILURE_BUDGET_MS by default). */
    failureBudgetMs?: number;
  };
  /** Whether a partition paused for its window may take again. */
  window: Pick<TakeWindow, 'resumable' | 'use'>;
  /** The partitions held now. */
  partitions(): Iterable<PartitionState>;
  producer: Pick<TransactionalProducer, 'commit' | 'connect'>;
  /** The group membership the partitions are held under; none before the first join. */
  member(): GroupMember | undefined;
  pauses: Pick<PauseControl, 'resume'>;
  logger: Logger;
  metrics?: { committed(count: number): void; commitRefused?(): void } | undefined;
  /** The group's stable committed offset of a partition; none while a transaction holds it. */
  committedOffset(topic: string, partition: number): Promise<string | undefined>;
  /** The group refused the round's offsets: this member's generation is over. */
  onRefused(states: PartitionState[]): void;
  onFatal(error: unknown): void;
}

/** At least this many failed rounds in a row, over at least the budget, before it is fatal. */
export const MAX_COMMIT_FAILURES = 5;
/**
 * How long rounds may fail in a row before the runtime gives up: longer than a broker failover
 * takes (the controller fences a dead broker after its session timeout, 9 s by default, then
 * leaders and coordinators move and load), so that a leader election is waited out, not fatal.
 */
export const COMMIT_FAILURE_BUDGET_MS = 120_000;
/** The wait before the first retry of a failed round; it doubles up to RETRY_MAX_DELAY_MS. */
const RETRY_DELAY_MS = 100;
const RETRY_MAX_DELAY_MS = 5_000;
/** The share of its own time an outcome may wait for company in its commit round (see above). */
const COMMIT_WAIT_SHARE = 0.1;

interface Taken {
  state: PartitionState;
  prefix: DrainedPrefix<OutputRecord>;
}

/** Work a round would take from the partition: carried from a failed round, or a ready prefix. */
function hasCommittable(state: PartitionState): boolean {
  return state.carry !== undefined || state.tracker.hasReadyPrefix();
}

export class CommitLoop {
  private round: Promise<void> | undefined;
  private scheduled: NodeJS.Timeout | undefined;
  private scheduledAt = 0;
  private lastStartedAt = 0;
  /** The shortest work time among outcomes completed since the last round took its work. */
  private pendingWorkMs = Infinity;
  private failures = 0;
  /** When the current run of failed rounds began. */
  private failingSince = 0;
  private stopped = true;

  constructor(private readonly deps: CommitLoopDeps) {}

  start(): void {
    this.stopped = false;
  }

  /** No round is scheduled after this; one already started finishes. */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.scheduled);
    this.scheduled = undefined;
  }

  /** The last commit at shutdown, once in-flight work has finished or been abandoned. */
  async commitFinal(): Promise<void> {
    this.stop();
    // A round under way at the stop leaves what completed meanwhile for one more.
    if (this.round) await this.round;
    for (let round = 0; round <= MAX_COMMIT_FAILURES && this.hasWork(); round += 1) await this.commitRound();
  }

  /** The wait before the next try of a failed round: doubling, capped, with full jitter. */
  retryDelayMs(): number {
    const ceiling = Math.min(RETRY_MAX_DELAY_MS, RETRY_DELAY_MS * 2 ** Math.max(0, this.failures - 1));
    return Math.round(ceiling / 2 + Math.random() * (ceiling / 2));
  }

  /**
   * A message of the partition completed, `workMs` after the service began on it: a round
   * starts as soon as the spacing allows.
   */
  completed(state: PartitionState, workMs = 0): void {
    if (this.stopped || state.isRevoked()) return;
    this.pendingWorkMs = Math.min(this.pendingWorkMs, Math.max(0, workMs));
    if (hasCommittable(state)) this.schedule(0);
  }

  /** The time between round starts the work waiting now allows. */
  spacingMs(): number {
    const { commitIntervalMs, maxCommitIntervalMs } = this.deps.settings;
    if (!Number.isFinite(this.pendingWorkMs)) return commitIntervalMs;
    return Math.min(
      maxCommitIntervalMs,
      Math.max(commitIntervalMs, Math.round(this.pendingWorkMs * COMMIT_WAIT_SHARE)),
    );
  }

  /** Schedules the next round, or brings a scheduled one forward. */
  private schedule(delayMs: number): void {
    if (this.stopped || this.round) return;
    const now = Date.now();
    const at = Math.max(now + delayMs, this.lastStartedAt + this.spacingMs());
    if (this.scheduled) {
      if (at >= this.scheduledAt) return;
      clearTimeout(this.scheduled);
    }
    this.scheduledAt = at;
    this.scheduled = setTimeout(
      () => {
        this.scheduled = undefined;
        void this.commitRound();
      },
      Math.max(0, at - now),
    );
  }

  /** Commits every held partition's completed prefix in one transaction. */
  commitRound(): Promise<void> {
    if (this.round) return this.round;
    let retryAfterMs = 0;
    this.round = this.runRound()
      .then((ok) => {
        if (!ok) retryAfterMs = this.retryDelayMs();
      })
      .finally(() => {
        this.round = undefined;
        // What completed meanwhile (or a failed round) goes in the next transaction.
        if (this.hasWork()) this.schedule(retryAfterMs);
      });
    return this.round;
  }

  /** False when the round failed or could not start, to be tried again shortly. */
  private async runRound(): Promise<boolean> {
    const member = this.deps.member();
    if (!member) return true;
    if (this.failures > 0) {
      // The replaced producer's InitProducerId ends the failed transaction (see commit()): only
      // then do the group's stable offsets say for sure whether it committed.
      try {
        await this.deps.producer.connect();
      } catch (error) {
        this.countFailure(error);
        return false;
      }
      if (!(await this.settleCarried())) return false;
    }
    const taken = this.take();
    if (taken.length === 0) return true;
    const startedAt = Date.now();
    this.lastStartedAt = startedAt;
    const records = taken.flatMap((t) => t.prefix.outputs);
    const offsets = taken.map(({ state, prefix }) => ({
      topic: state.topic,
      partition: state.partition,
      offset: prefix.nextOffset,
    }));
    try {
      await this.deps.producer.commit(records, offsets, member);
      this.succeeded(taken, startedAt);
      return true;
    } catch (error) {
      this.failed(taken, error);
      return false;
    }
  }

  /**
   * A transaction reported as failed may have committed all the same (its EndTxn answer lost
   * in a timeout): before sending carried work again, the group's stable offsets say whether it
   * is in already. False while a transaction still holds those offsets (try again later).
   */
  private async settleCarried(): Promise<boolean> {
    for (const state of this.deps.partitions()) {
      const { carry } = state;
      if (!carry || state.isRevoked()) continue;
      const committed = await this.deps.committedOffset(state.topic, state.partition).catch(() => undefined);
      if (committed === undefined) return false;
      if (BigInt(committed) < BigInt(carry.nextOffset) || state.carry !== carry) continue;
      this.deps.logger.warn(
        { topic: state.topic, partition: state.partition },
        'a transaction reported as failed had committed; its work is not sent again',
      );
      state.carry = undefined;
      state.committed(carry.nextOffset, Date.now());
      this.deps.metrics?.committed(carry.count);
      // A partition its window paused has nothing left to commit: resumed here or never.
      this.resumeIfRoom(state, this.deps.window.use());
    }
    return true;
  }

  private resumeIfRoom(state: PartitionState, use: ReturnType<TakeWindow['use']>): void {
    if (this.deps.window.resumable(state, use))
      this.deps.pauses.resume(state.topic, state.partition, 'window');
  }

  private take(): Taken[] {
    this.pendingWorkMs = Infinity;
    const taken: Taken[] = [];
    for (const state of this.deps.partitions()) {
      if (state.isRevoked()) continue;
      const prefix = state.takePrefix();
      if (prefix) taken.push({ state, prefix });
    }
    return taken;
  }

  private hasWork(): boolean {
    for (const state of this.deps.partitions()) if (!state.isRevoked() && hasCommittable(state)) return true;
    return false;
  }

  private succeeded(taken: Taken[], startedAt: number): void {
    this.failures = 0;
    this.failingSince = 0;
    let count = 0;
    const use = this.deps.window.use();
    for (const { state, prefix } of taken) {
      count += prefix.count;
      state.committed(prefix.nextOffset, startedAt);
      this.resumeIfRoom(state, use);
    }
    this.deps.metrics?.committed(count);
  }

  private failed(taken: Taken[], error: unknown): void {
    if (isRefusedMember(error)) {
      this.deps.logger.warn(
        { err: error, partitions: taken.length },
        "commit refused: this member's group generation is over; its partitions are read again",
      );
      this.deps.metrics?.commitRefused?.();
      this.deps.onRefused(taken.map((t) => t.state));
      return;
    }
    for (const { state, prefix } of taken) if (!state.isRevoked()) state.carry = prefix;
    this.countFailure(error);
  }

  private countFailure(error: unknown): void {
    const now = Date.now();
    if (this.failures === 0) this.failingSince = now;
    this.failures += 1;
    const failingMs = now - this.failingSince;
    this.deps.logger.error({ err: error, failures: this.failures, failingMs }, 'transaction failed');
    const budgetMs = this.deps.settings.failureBudgetMs ?? COMMIT_FAILURE_BUDGET_MS;
    const spent = this.failures >= MAX_COMMIT_FAILURES && failingMs >= budgetMs;
    if (spent || isUnrecoverable(error)) this.deps.onFatal(error);
  }
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
