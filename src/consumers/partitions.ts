import type { Admin } from 'kafkajs';
import type { Logger } from 'pino';
import type { Operation } from '../contract/operations.js';
import type { OperationSchedulers } from './operation-schedulers.js';
import { PartitionState } from './partition-state.js';
import type { PauseControl } from './pause-control.js';
import { abortableSleep, retry } from '../retry.js';

/** What `Partitions` depends on. */
export interface PartitionsDeps {
  admin: Pick<Admin, 'fetchOffsets' | 'fetchTopicOffsets'>;
  settings: { groupId: string; shutdownTimeoutMs: number };
  pauses: Pick<PauseControl, 'release' | 'pause' | 'resume'>;
  /** A partition opened: pauses its operation still wants (open breaker, reached spend cap). */
  opened(operation: Operation, topic: string, partition: number): void;
  /** Where the consumer fetches the partition next ('-2': its earliest offset). */
  seek(topic: string, partition: number, offset: string): void;
  scheduler: Pick<OperationSchedulers, 'dropQueued'>;
  logger: Logger;
  /** Wait between reads of an unstable offset; grows to 1 s. */
  unstableRetryMs?: number;
  /**
   * How long a partition may wait for an earlier owner's open transaction before it is reported
   * as held by a hanging one (HANGING_TRANSACTION_MARGIN_MS past the transaction timeout).
   */
  hangingAfterMs: number;
  now?: () => number;
}

/**
 * Past the transaction timeout, the broker aborts an expired transaction at its next check
 * (`transaction.abort.timed.out.transaction.cleanup.interval.ms`, 10 s by default) and writes its
 * markers; a partition still held this long after the timeout waits on a transaction the broker
 * will not end by itself (its markers lost, KIP-664's hanging transaction).
 */
export const HANGING_TRANSACTION_MARGIN_MS = 15_000;

/** A partition paused until an earlier owner's transaction ends; `ended` stops the wait. */
interface UnstableWait {
  topic: string;
  partition: number;
  since: number;
  ended: AbortController;
}

/** A request partition held by an open transaction past the transaction timeout. */
export interface HeldPartition {
  topic: string;
  partition: number;
  /** Since the partition started waiting. */
  heldMs: number;
}

/** kafkajs's seek offset for "the earliest": the partition has no committed offset yet. */
export const EARLIEST_OFFSET = '-2';

/**
 * The life cycle of the request partitions this instance holds: opened on their first batch
 * from the group's committed offset, revoked when a rebalance takes them away or the group
 * refuses their commit.
 *
 * The committed offset is read with require_stable (KIP-447): while an earlier owner's
 * transaction holding offsets of the partition is still open, the partition is paused and read
 * again once that transaction has ended (committed, aborted, or timed out), so nothing it commits
 * is done twice. Pausing, not waiting inside the batch, keeps the consumer's heartbeats going.
 *
 * Messages are taken only from a batch kafkajs fetched from at or before that committed offset:
 * kafkajs reads ahead of what is committed, and a state opened after a refused commit would
 * otherwise take a batch fetched from where kafkajs had got to, skipping (and later committing
 * past) the messages between. Such a batch is dropped and the partition read again from the
 * committed offset.
 */
export class Partitions {
  private readonly states = new Map<string, PartitionState>();
  private readonly pending = new Map<string, Promise<PartitionState | undefined>>();
  /** Partitions paused until an earlier owner's transaction ends, with when each started waiting. */
  private readonly unstable = new Map<string, UnstableWait>();
  private stopped = false;
  private assignment: Record<string, number[] | undefined> = {};
  /** Each topic's partitions' log start offsets, as last read since the last rebalance. */
  private readonly logStarts = new Map<string, Map<number, bigint>>();
  /** Reads under way; a rebalance drops them, and a read no longer listed is not kept. */
  private readonly logStartReads = new Map<string, Promise<Map<number, bigint>>>();

  constructor(private readonly deps: PartitionsDeps) {}

  values(): IterableIterator<PartitionState> {
    return this.states.values();
  }

  /** The held partitions of a topic. */
  partitionsOf(topic: string): number[] {
    return [...this.states.values()].filter((s) => s.topic === topic).map((s) => s.partition);
  }

  /**
   * The state to take a batch fetched from `fetchedOffset` into; none while an earlier owner's
   * transaction holds the partition's offsets (paused until it ends), or when the batch was
   * fetched from past the committed offset (read again from there).
   */
  async stateFor(
    topic: string,
    partition: number,
    operation: Operation,
    fetchedOffset: string,
  ): Promise<PartitionState | undefined> {
    const state = await this.opened(topic, partition, operation);
    if (!state || state.positioned) return state;
    if (await this.fetchedWithin(state, BigInt(fetchedOffset))) {
      state.positioned = true;
      return state;
    }
    const offset = state.committedOffset === '-1' ? EARLIEST_OFFSET : state.committedOffset;
    this.deps.logger.info(
      { topic, partition, fetched: fetchedOffset, committed: state.committedOffset },
      'batch fetched past the committed offset; reading the partition again from it',
    );
    this.deps.seek(topic, partition, offset);
    return undefined;
  }

  /**
   * kafkajs read records from `first` to `last` and filtered them all out (transaction markers,
   * aborted transactions), then went on past them without a batch (its START_BATCH_PROCESS
   * event says so). From the offset this partition is read from, such a stretch is nothing
   * missed: without this, a committed offset on a marker followed by a batch larger than a
   * fetch's share (cut off, so dropped) was read again from the marker forever.
   */
  filteredOut(topic: string, partition: number, first: string, last: string): void {
    const state = this.states.get(`${topic}/${partition}`);
    if (!state || state.positioned) return;
    const committed = BigInt(state.committedOffset);
    const from = committed >= 0n ? committed : this.logStarts.get(topic)?.get(partition);
    const reached = state.filteredTo ?? from;
    if (reached === undefined || BigInt(first) > reached) return;
    const past = BigInt(last) + 1n;
    if (past > reached) state.filteredTo = past;
  }

  /**
   * Whether nothing between the committed offset and `fetched` can be missed: the batch starts
   * at or before the committed offset, or what lies before it is gone (retention, the log's start).
   */
  private async fetchedWithin(state: PartitionState, fetched: bigint): Promise<boolean> {
    if (fetched <= BigInt(state.committedOffset)) return true;
    if (state.filteredTo !== undefined && fetched <= state.filteredTo) return true;
    // A log start only moves forward, so one read earlier is at most the current one: when it
    // already covers the batch, nothing before the batch is left. Otherwise read it again.
    const known = this.logStarts.get(state.topic)?.get(state.partition);
    if (known !== undefined && fetched <= known) return true;
    const low = (await this.readLogStarts(state.topic)).get(state.partition);
    return low !== undefined && fetched <= low;
  }

  /**
   * The log start of every partition of `topic`, in one read shared by the partitions asking
   * while it is under way. A read answers for the whole topic: partitions that open together
   * from the log start (a new topic, a group's first start) take one read, not one each.
   */
  private readLogStarts(topic: string): Promise<Map<number, bigint>> {
    const shared = this.logStartReads.get(topic);
    if (shared) return shared;
    const read = this.deps.admin
      .fetchTopicOffsets(topic)
      .then((offsets) => {
        const starts = new Map(offsets.map((p) => [p.partition, BigInt(p.low)]));
        if (this.logStartReads.get(topic) === read) this.logStarts.set(topic, starts);
        return starts;
      })
      .catch(() => new Map<number, bigint>())
      .finally(() => {
        if (this.logStartReads.get(topic) === read) this.logStartReads.delete(topic);
      });
    this.logStartReads.set(topic, read);
    return read;
  }

  /**
   * The partition's state, opened once however many batches ask at the same time; none while an
   * earlier owner's transaction holds its offsets.
   */
  private opened(
    topic: string,
    partition: number,
    operation: Operation,
  ): Promise<PartitionState | undefined> {
    const id = `${topic}/${partition}`;
    const existing = this.states.get(id);
    if (existing && !existing.isRevoked()) return Promise.resolve(existing);
    if (this.unstable.has(id)) return Promise.resolve(undefined);
    let pending = this.pending.get(id);
    if (!pending) {
      pending = this.open(topic, partition, operation).finally(() => this.pending.delete(id));
      this.pending.set(id, pending);
    }
    return pending;
  }

  private async open(
    topic: string,
    partition: number,
    operation: Operation,
  ): Promise<PartitionState | undefined> {
    const { deps } = this;
    const offset = await stableCommittedOffset(deps.admin, deps.settings.groupId, topic, partition);
    if (offset === undefined) {
      this.waitForStable(topic, partition);
      return undefined;
    }
    const state = new PartitionState(topic, partition, operation);
    state.highestTaken = BigInt(offset) - 1n;
    state.committedOffset = offset;
    deps.opened(operation, topic, partition);
    this.states.set(state.id, state);
    deps.logger.info({ topic, partition, committed: offset }, 'partition opened');
    return state;
  }

  /**
   * Reads the committed offset again, at waits growing to 1 s, until no transaction holds it;
   * then resumes the partition, whose next batch opens it. A reassignment that takes the
   * partition away ends the wait at once (and lets the pause go); a stop ends it too.
   */
  private waitForStable(topic: string, partition: number): void {
    const id = `${topic}/${partition}`;
    if (this.unstable.has(id) || this.stopped) return;
    const { deps } = this;
    const wait: UnstableWait = { topic, partition, since: this.now(), ended: new AbortController() };
    this.unstable.set(id, wait);
    deps.pauses.pause(topic, partition, 'unstable-offsets');
    deps.logger.info({ topic, partition }, "partition waits for an earlier owner's open transaction");
    let reported = false;
    const firstDelayMs = deps.unstableRetryMs ?? 50;
    const stable = async (): Promise<void> => {
      const offset = await stableCommittedOffset(deps.admin, deps.settings.groupId, topic, partition).catch(
        () => undefined,
      );
      if (offset !== undefined) return;
      const heldMs = this.now() - wait.since;
      if (!reported && heldMs >= deps.hangingAfterMs) {
        reported = true;
        deps.logger.warn(
          { topic, partition, heldMs, hangingAfterMs: deps.hangingAfterMs },
          'partition held by an open transaction past the transaction timeout: a hanging transaction? ' +
            'Find and abort it with kafka-transactions.sh find-hanging / abort (docs/operations.md, "Hanging transactions")',
        );
      }
      throw new Error('offsets still held by an open transaction');
    };
    const { signal } = wait.ended;
    abortableSleep(firstDelayMs, signal)
      .then(() =>
        retry(stable, { firstDelayMs: firstDelayMs * 2, maxDelayMs: 1_000, jitter: 'none', signal }),
      )
      .then(
        () => {
          this.unstable.delete(id);
          if (reported) {
            deps.logger.warn(
              { topic, partition, heldMs: this.now() - wait.since },
              'partition no longer held by a hanging transaction',
            );
          }
          // Fetched again on resume; the batch opens the partition from the now stable offset.
          deps.pauses.resume(topic, partition, 'unstable-offsets');
        },
        () => {
          // Ended: stopped, or the partition went elsewhere (assigned() let its pause go).
        },
      );
  }

  /** The partitions waiting for an open transaction for longer than `hangingAfterMs`. */
  heldByHangingTransactions(): HeldPartition[] {
    const now = this.now();
    return [...this.unstable.values()]
      .map(({ topic, partition, since }) => ({ topic, partition, heldMs: now - since }))
      .filter((held) => held.heldMs >= this.deps.hangingAfterMs);
  }

  private now(): number {
    return this.deps.now?.() ?? Date.now();
  }

  /** Ends the waits for unstable offsets: the runtime is stopping, and will read nothing more. */
  stop(): void {
    this.stopped = true;
    for (const wait of this.unstable.values()) wait.ended.abort(new Error('stopped'));
  }

  /** Revokes every held partition the group's new assignment leaves out. */
  assigned(assignment: Record<string, number[] | undefined>): void {
    this.assignment = assignment;
    // A topic deleted and made again starts its log over: never carry log starts across.
    this.logStarts.clear();
    this.logStartReads.clear();
    for (const state of this.states.values()) {
      if (!assignment[state.topic]?.includes(state.partition)) this.revoke(state);
    }
    for (const [id, wait] of this.unstable) {
      if (assignment[wait.topic]?.includes(wait.partition)) continue;
      wait.ended.abort(new Error('partition assigned elsewhere'));
      this.unstable.delete(id);
      this.deps.pauses.resume(wait.topic, wait.partition, 'unstable-offsets');
    }
  }

  revoke(state: PartitionState): void {
    if (state.isRevoked()) return;
    state.markRevoked();
    // A vendor call under way is paid for whatever we do: let it finish and store its outcome
    // (nothing is published for a revoked partition), or the new owner pays again. Work that has
    // not reached the vendor stops now; calls still running at the deadline are abandoned.
    state.abort.abort(new Error('partition revoked'));
    setTimeout(() => {
      state.callAbort.abort(new Error('partition revoked'));
    }, this.deps.settings.shutdownTimeoutMs).unref();
    this.deps.scheduler.dropQueued((scope) => scope === state.id);
    this.states.delete(state.id);
    this.deps.pauses.release(state.topic, state.partition);
    this.deps.logger.info({ topic: state.topic, partition: state.partition }, 'partition revoked');
  }

  /** Shutdown past its deadline: work and calls still under way are abandoned. */
  abortAll(): void {
    for (const state of this.states.values()) {
      state.abort.abort(new Error('shutdown'));
      state.callAbort.abort(new Error('shutdown'));
    }
  }

  /** Revokes every held partition: another member may have held them since. */
  revokeAll(): void {
    for (const state of this.states.values()) this.revoke(state);
  }
}

/**
 * The group's committed offset of one partition ('-1' when nothing is committed yet), or none
 * while a pending transaction holds offsets of it.
 */
export async function stableCommittedOffset(
  admin: Pick<Admin, 'fetchOffsets'>,
  groupId: string,
  topic: string,
  partition: number,
): Promise<string | undefined> {
  try {
    // This partition only: another's pending transaction must not hold this one back.
    const [committed] = await admin.fetchOffsets({
      groupId,
      topics: [{ topic, partitions: [partition] }],
      requireStable: true,
    });
    return committed?.partitions.find((p) => p.partition === partition)?.offset ?? '-1';
  } catch (error) {
    if ((error as { type?: unknown } | null)?.type === 'UNSTABLE_OFFSET_COMMIT') return undefined;
    throw error;
  }
}
