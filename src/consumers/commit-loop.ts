import type { Logger } from 'pino';
import type { OutputRecord } from '../producers/output-records.js';
import type { DrainedPrefix } from './offset-tracker.js';
import type { PartitionState } from './partition-state.js';
import type { PauseControl } from './pause-control.js';
import type { TakeWindow } from './take-window.js';
import type { Consumer } from '../kafka/client.js';
import { isRefusedMember, type TransactionalProducer } from './transactional-producer.js';
import { backoffDelayMs, type Backoff } from '../retry.js';

/** What the commit loop commits, with what, and whom it tells. */
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
  /** The consumer whose group the partitions are held in; none before its first assignment. */
  consumer(): Consumer | undefined;
  pauses: Pick<PauseControl, 'resume'>;
  logger: Logger;
  metrics?: { committed(count: number): void; commitRefused?(): void } | undefined;
  /** The group's stable committed offset of a partition; none while a transaction holds it. */
  /**
   * The group's stable committed offsets of partitions, in one read, by `topic/partition`; none
   * for a partition while a transaction holds it.
   */
  committedOffsets(
    partitions: readonly { topic: string; partition: number }[],
  ): Promise<Map<string, string | undefined>>;
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
/** The wait before the first retry of a failed round: 100 ms, doubling up to 5 s, with equal jitter. */
const ROUND_RETRY: Backoff = { firstDelayMs: 100, maxDelayMs: 5_000, jitter: 'equal' };
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

/**
 * The end of a request's path: its outcome committed with its input offset, through the
 * process's transactional producer (transactional-producer.ts).
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
 * Zombie fencing (KIP-447): the offsets carry the consumer's group metadata (generation and
 * member id, read by the client when the offsets are sent); the group coordinator refuses them
 * once that generation is over, the transaction aborts, and the round's partitions are read
 * again from their committed offsets (if they are still ours).
 *
 * A failed round is carried to the next, after a backoff that grows with each failure in a row
 * (with jitter). Its producer is replaced first (see `TransactionalProducer.commit`), so the
 * group's stable offsets then tell whether the failed transaction committed after all. A
 * broker failover (a leader election, a coordinator moving) takes seconds to tens of seconds:
 * failures are fatal only once none has succeeded for `failureBudgetMs`.
 */
/** A round lasting longer than this is reported (where it waits), and again at every multiple. */
const ROUND_STALL_REPORT_MS = 15_000;

export class CommitLoop {
  private round: Promise<void> | undefined;
  /** Where the round under way is, for the report of a long one. */
  private roundStage: 'idle' | 'init' | 'settle-carried' | 'commit' = 'idle';
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

  /**
   * Waits for the round under way, if any, for up to `timeoutMs`: true once none is under way.
   * A revocation waits here before it lets its partitions go, so that no round sends their
   * offsets under the next generation.
   */
  async settle(timeoutMs: number): Promise<boolean> {
    const round = this.round;
    if (!round) return true;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>((resolve) => {
      timer = setTimeout(resolve, timeoutMs, false);
    });
    try {
      return await Promise.race([round.then(() => true), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** The last commit at shutdown, once in-flight work has finished or been abandoned. */
  async commitFinal(): Promise<void> {
    this.stop();
    // A round under way at the stop leaves what completed meanwhile for one more.
    if (this.round) await this.round;
    for (let round = 0; round <= MAX_COMMIT_FAILURES && this.hasWork(); round += 1) await this.commitRound();
  }

  /**
   * The wait before the next try of a failed round (ROUND_RETRY). The round is scheduled, not
   * awaited: stop() clears it, and countFailure decides when failing is fatal.
   */
  retryDelayMs(): number {
    return backoffDelayMs(ROUND_RETRY, this.failures);
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
    const startedAt = Date.now();
    const watch = setInterval(() => {
      this.deps.logger.warn(
        { stage: this.roundStage, ms: Date.now() - startedAt },
        'a commit round is taking long',
      );
    }, ROUND_STALL_REPORT_MS);
    watch.unref();
    this.round = this.runRound()
      .then((ok) => {
        if (!ok) retryAfterMs = this.retryDelayMs();
      })
      .finally(() => {
        clearInterval(watch);
        this.roundStage = 'idle';
        this.round = undefined;
        // What completed meanwhile (or a failed round) goes in the next transaction.
        if (this.hasWork()) this.schedule(retryAfterMs);
      });
    return this.round;
  }

  /** False when the round failed or could not start, to be tried again shortly. */
  private async runRound(): Promise<boolean> {
    const consumer = this.deps.consumer();
    if (!consumer) return true;
    if (this.failures > 0) {
      // The replaced producer's InitProducerId ends the failed transaction (see commit()): only
      // then do the group's stable offsets say for sure whether it committed.
      try {
        this.roundStage = 'init';
        await this.deps.producer.connect();
      } catch (error) {
        this.countFailure(error);
        return false;
      }
      this.roundStage = 'settle-carried';
      if (!(await this.settleCarried())) return false;
    }
    this.roundStage = 'commit';
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
      // Asked right before the offsets go: none of the round's partitions may have been revoked.
      const owns = (): boolean => taken.every(({ state }) => !state.isRevoked());
      await this.deps.producer.commit(records, offsets, { consumer, owns });
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
    const carried = [...this.deps.partitions()].filter((state) => state.carry && !state.isRevoked());
    if (carried.length === 0) return true;
    // One read for all of them: each read of an offset still held waits for it a while.
    const offsets = await this.deps
      .committedOffsets(carried)
      .catch(() => new Map<string, string | undefined>());
    for (const state of carried) {
      const { carry } = state;
      if (!carry || state.isRevoked()) continue;
      const committed = offsets.get(`${state.topic}/${state.partition}`);
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
        "commit refused: this member's group generation is over, or the partitions were revoked; they are read again",
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
    if (spent) this.deps.onFatal(error);
  }
}
