import { KafkaJS } from '@confluentinc/kafka-javascript';

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
 * comes or the last goes. A consumer that is not connected (stopping) has nothing to pause.
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
   * A revoked partition: every reason is dropped and the consumer may fetch it again. A pause
   * outlives a refused commit (the partition stays assigned), so a partition dropped while still
   * paused would never be fetched again. Reasons still wanted are set again when the partition
   * opens anew.
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
      if (!isNotConnected(error)) throw error;
    }
  }
}

/** The client's answer to a pause or resume while its consumer is not connected. */
function isNotConnected(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === KafkaJS.ErrorCodes.ERR__STATE;
}
