import { isBetweenRuns } from './kafkajs-between-runs.js';

/**
 * Why a partition is paused. A partition is fetched only when no reason holds: the window
 * (too much uncommitted work), an open circuit breaker, a reached spend cap, or an earlier
 * owner's open transaction holding the partition's offsets. Keeping the
 * reasons apart stops one from resuming what another paused.
 */
export type PauseReason = 'window' | 'breaker' | 'spend-cap' | 'shutdown' | 'unstable-offsets';

export interface PauseTarget {
  pause(topics: { topic: string; partitions: number[] }[]): void;
  resume(topics: { topic: string; partitions: number[] }[]): void;
}

/**
 * Keeps each partition's reasons and pauses or resumes it in the consumer as the first reason
 * comes or the last goes. While the consumer is between runs (after a crash, until kafkajs
 * restarts it) there is nothing to pause: nothing is fetched, and the restarted consumer joins
 * the group as a new member, so every partition is revoked (its reasons dropped) and opened
 * anew, its reasons set again (runtime.ts, joined).
 */
export class PauseControl {
  private readonly reasons = new Map<string, Set<PauseReason>>();

  constructor(private readonly target: PauseTarget) {}

  pause(topic: string, partition: number, reason: PauseReason): void {
    const id = `${topic}\u0000${partition}`;
    let set = this.reasons.get(id);
    if (!set) {
      set = new Set();
      this.reasons.set(id, set);
    }
    if (set.size === 0) this.apply('pause', topic, partition);
    set.add(reason);
  }

  resume(topic: string, partition: number, reason: PauseReason): void {
    const id = `${topic}\u0000${partition}`;
    const set = this.reasons.get(id);
    if (!set?.delete(reason)) return;
    if (set.size === 0) this.apply('resume', topic, partition);
  }

  isPausedFor(topic: string, partition: number, reason: PauseReason): boolean {
    return this.reasons.get(`${topic}\u0000${partition}`)?.has(reason) ?? false;
  }

  /** Every reason holding each paused partition (for metrics). */
  paused(): { topic: string; partition: number; reason: PauseReason }[] {
    const list: { topic: string; partition: number; reason: PauseReason }[] = [];
    for (const [id, reasons] of this.reasons) {
      const [topic = '', partition = '0'] = id.split('\u0000');
      for (const reason of reasons) list.push({ topic, partition: Number(partition), reason });
    }
    return list;
  }

  /**
   * A revoked partition: every reason is dropped and the consumer may fetch it again. kafkajs
   * keeps a partition's pause across revocations and assignments, so a partition dropped while
   * still paused would never be fetched again, whether it stays ours (a refused commit) or comes
   * back later. Reasons still wanted are set again when the partition opens anew.
   */
  release(topic: string, partition: number): void {
    const id = `${topic}\u0000${partition}`;
    const set = this.reasons.get(id);
    this.reasons.delete(id);
    if (set && set.size > 0) this.apply('resume', topic, partition);
  }

  private apply(action: 'pause' | 'resume', topic: string, partition: number): void {
    try {
      this.target[action]([{ topic, partitions: [partition] }]);
    } catch (error) {
      if (!isBetweenRuns(error)) throw error;
    }
  }
}
