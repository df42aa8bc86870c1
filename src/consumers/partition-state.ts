import type { Operation } from '../contract/operations.js';
import type { OutputRecord } from '../producers/output-records.js';
import { OffsetTracker, type DrainedPrefix } from './offset-tracker.js';

/** What waits on one offset's commit: its metrics and its request span. */
export interface CommitWatcher {
  committed(commitStartedAt: number): void;
  /** The partition was revoked before the offset was committed here. */
  revoked(): void;
}

/** What the runtime holds for one assigned request partition. */
export class PartitionState {
  readonly id: string;
  readonly tracker = new OffsetTracker<OutputRecord>();
  /** Aborts work that has not reached the vendor yet: breaker and limiter waits, backoffs. */
  readonly abort = new AbortController();
  /**
   * Aborts vendor calls under way. Revocation lets them finish (up to a deadline) so their paid
   * outcome is stored and the partition's new owner reuses it instead of paying again.
   */
  readonly callAbort = new AbortController();
  /** Messages at or below this offset were taken already (or committed before we got the partition). */
  highestTaken = -1n;
  /**
   * The next offset to read that the group is known to have committed ('-1': none): read when
   * the partition opened, then each commit's. The group's may be further on, never behind, so
   * reading again from here skips nothing.
   */
  committedOffset = '-1';
  /** A drained prefix whose commit failed and is tried again. */
  carry: DrainedPrefix<OutputRecord> | undefined;
  private revokedFlag = false;
  /**
   * Told once the offset they wait for is committed (metrics, traces), not in offset order; or
   * that it never will be here, when the partition is revoked first.
   */
  private watchers: { offset: bigint; watcher: CommitWatcher }[] = [];

  constructor(
    readonly topic: string,
    readonly partition: number,
    readonly operation: Operation,
  ) {
    this.id = `${topic}/${partition}`;
  }

  /** A method, not a field: it changes across awaits, which type narrowing cannot see. */
  isRevoked(): boolean {
    return this.revokedFlag;
  }

  onCommitted(offset: string, watcher: CommitWatcher | undefined): void {
    if (watcher) this.watchers.push({ offset: BigInt(offset), watcher });
  }

  /** The transaction committing offsets below `nextOffset`, started at `startedAt`, succeeded. */
  committed(nextOffset: string, startedAt: number): void {
    this.committedOffset = nextOffset;
    if (this.watchers.length === 0) return;
    const next = BigInt(nextOffset);
    const waiting: typeof this.watchers = [];
    for (const entry of this.watchers) {
      if (entry.offset < next) entry.watcher.committed(startedAt);
      else waiting.push(entry);
    }
    this.watchers = waiting;
  }

  markRevoked(): void {
    this.revokedFlag = true;
    const never = this.watchers;
    this.watchers = [];
    for (const { watcher } of never) watcher.revoked();
  }

  /** The prefix to commit now: a failed one first, merged with what completed since. */
  takePrefix(): DrainedPrefix<OutputRecord> | undefined {
    const more = this.tracker.drain();
    const carry = this.carry;
    this.carry = undefined;
    if (!carry) return more;
    if (!more) return carry;
    return {
      nextOffset: more.nextOffset,
      outputs: [...carry.outputs, ...more.outputs],
      count: carry.count + more.count,
    };
  }
}
