import type { Operation } from '../contract/operations.js';
import type { OutputRecord } from '../producers/output-records.js';
import type { PartitionProducer } from '../producers/partition-producer.js';
import { OffsetTracker, type DrainedPrefix } from './offset-tracker.js';

/** What the runtime holds for one assigned request partition. */
export class PartitionState {
  readonly id: string;
  readonly tracker = new OffsetTracker<OutputRecord>();
  readonly abort = new AbortController();
  /** Messages at or below this offset were taken already (or committed before we got the partition). */
  highestTaken = -1n;
  /** A drained prefix whose commit failed and is tried again. */
  carry: DrainedPrefix<OutputRecord> | undefined;
  commitFailures = 0;
  committing: Promise<void> | undefined;
  private revokedFlag = false;

  constructor(
    readonly topic: string,
    readonly partition: number,
    readonly operation: Operation,
    readonly producer: PartitionProducer,
  ) {
    this.id = `${topic}/${partition}`;
  }

  /** A method, not a field: it changes across awaits, which type narrowing cannot see. */
  isRevoked(): boolean {
    return this.revokedFlag;
  }

  markRevoked(): void {
    this.revokedFlag = true;
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
