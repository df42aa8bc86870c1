import { KafkaJS } from '@confluentinc/kafka-javascript';
import type { OffsetsAdmin } from '../kafka/client.js';
import type { Logger } from 'pino';
import type { Operation } from '../contract/operations.js';
import type { OperationSchedulers } from './operation-schedulers.js';
import { PartitionState } from './partition-state.js';
import type { PauseControl } from './pause-control.js';
import { abortableSleep, retry } from '../retry.js';

/** What `Partitions` depends on. */
export interface PartitionsDeps {
  admin: OffsetsAdmin;
  settings: { groupId: string; shutdownTimeoutMs: number };
  pauses: Pick<PauseControl, 'release' | 'pause' | 'resume'>;
  /** A partition opened: pauses its operation still wants (open breaker, reached spend cap). */
  opened(operation: Operation, topic: string, partition: number): void;
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

/** The client's seek offset for "the earliest": the partition has no committed offset yet. */
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
 * The client positions a partition at its committed offset when it is assigned (librdkafka reads
 * it with require_stable as well), and a refused commit seeks the partition back to what its
 * state knew committed (runtime.ts): a batch fetched before that seek is stale and never taken
 * (the client hands out no batch while a seek is pending), so the first batch a new state takes
 * starts at or before the group's committed offset, and what lies below it is skipped.
 */
export class Partitions {
  private readonly states = new Map<string, PartitionState>();
  private readonly pending = new Map<string, Promise<PartitionState | undefined>>();
  /** Partitions paused until an earlier owner's transaction ends, with when each started waiting. */
  private readonly unstable = new Map<string, UnstableWait>();
  private stopped = false;

  constructor(private readonly deps: PartitionsDeps) {}

  values(): IterableIterator<PartitionState> {
    return this.states.values();
  }

  /** The held partitions of a topic. */
  partitionsOf(topic: string): number[] {
    return [...this.states.values()].filter((s) => s.topic === topic).map((s) => s.partition);
  }

  /**
   * The state to take a batch of the partition into; none while an earlier owner's transaction
   * holds the partition's offsets (paused until it ends).
   */
  stateFor(topic: string, partition: number, operation: Operation): Promise<PartitionState | undefined> {
    return this.opened(topic, partition, operation);
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

  /**
   * A partition just assigned. librdkafka reads its committed offset with require_stable too,
   * and fetches nothing of it while an earlier owner's transaction holds that offset: no batch
   * comes to open it. So the offset is read here as well, and a partition held is waited on
   * (and reported once held past the transaction timeout) from its assignment.
   */
  async assignedOne(topic: string, partition: number): Promise<void> {
    const id = `${topic}/${partition}`;
    if (this.stopped || this.states.has(id) || this.unstable.has(id)) return;
    const offset = await stableCommittedOffset(
      this.deps.admin,
      this.deps.settings.groupId,
      topic,
      partition,
    ).catch(() => '-1');
    if (offset === undefined && !this.states.has(id)) this.waitForStable(topic, partition);
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
 * while a pending transaction holds offsets of it (read with require_stable, KIP-447).
 */
export async function stableCommittedOffset(
  admin: OffsetsAdmin,
  groupId: string,
  topic: string,
  partition: number,
): Promise<string | undefined> {
  try {
    // This partition only: another's pending transaction must not hold this one back.
    const [committed] = await admin.fetchOffsets({
      groupId,
      topics: [{ topic, partitions: [partition] }],
      requireStableOffsets: true,
    });
    const entry = committed?.partitions.find((p) => p.partition === partition);
    if (entry?.error) {
      if (entry.error.code === UNSTABLE_OFFSET_COMMIT) return undefined;
      throw Object.assign(new Error(entry.error.message), { code: entry.error.code });
    }
    const offset = entry?.offset;
    // librdkafka's "no offset" is -1001 (RD_KAFKA_OFFSET_INVALID).
    return offset === undefined || BigInt(offset) < 0n ? '-1' : offset;
  } catch (error) {
    // A reader of the group's offsets as its consumer reads them asks again while a transaction
    // holds them, and times out if it still does (src/kafka/client.ts, openGroupOffsetsReader).
    const code = (error as { code?: unknown } | null)?.code;
    if (code === UNSTABLE_OFFSET_COMMIT || code === TIMED_OUT) return undefined;
    throw error;
  }
}

/**
 * The group's committed offsets of several partitions in one read, by `topic/partition` ('-1'
 * when nothing is committed); none for those a pending transaction holds, or for all of them
 * when the read as a whole waited too long for one.
 */
export async function stableCommittedOffsets(
  admin: OffsetsAdmin,
  groupId: string,
  partitions: readonly { topic: string; partition: number }[],
): Promise<Map<string, string | undefined>> {
  const byTopic = new Map<string, number[]>();
  for (const { topic, partition } of partitions)
    byTopic.set(topic, [...(byTopic.get(topic) ?? []), partition]);
  const found = new Map<string, string | undefined>();
  try {
    const read = await admin.fetchOffsets({
      groupId,
      topics: [...byTopic].map(([topic, list]) => ({ topic, partitions: list })),
      requireStableOffsets: true,
    });
    for (const { topic, partitions: entries } of read) {
      for (const { partition, offset, error } of entries) {
        if (error) continue;
        found.set(`${topic}/${partition}`, BigInt(offset) < 0n ? '-1' : offset);
      }
    }
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (code !== UNSTABLE_OFFSET_COMMIT && code !== TIMED_OUT) throw error;
  }
  return found;
}

const UNSTABLE_OFFSET_COMMIT = KafkaJS.ErrorCodes.ERR_UNSTABLE_OFFSET_COMMIT;
const TIMED_OUT = KafkaJS.ErrorCodes.ERR__TIMED_OUT;
