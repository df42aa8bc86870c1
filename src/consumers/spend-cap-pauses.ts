import type { Operation } from '../contract/operations.js';
import type { PauseControl } from './pause-control.js';

/** What `SpendCapPauses` depends on. */
export interface SpendCapPausesDeps {
  pauses: Pick<PauseControl, 'pause' | 'resume'>;
  /** The operation's request topics (both lanes). */
  topicsOf(operation: Operation): string[];
  /** The partitions of a topic this instance holds now. */
  partitionsOf(topic: string): number[];
  now?: () => number;
}

/**
 * Pauses an operation's partitions while its hourly spend cap is reached. The cap is the
 * operation's, not a partition's: a partition that opens (or opens again after a revocation)
 * before the cap's hour is over is paused as well.
 */
export class SpendCapPauses {
  private readonly until = new Map<Operation, { resumeAt: number; timer: NodeJS.Timeout }>();

  constructor(private readonly deps: SpendCapPausesDeps) {}

  /** Pauses the operation's partitions until `resumeAt` (epoch milliseconds), or later if already. */
  pauseUntil(operation: Operation, resumeAt: number): void {
    const topics = this.deps.topicsOf(operation);
    for (const topic of topics)
      for (const partition of this.deps.partitionsOf(topic))
        this.deps.pauses.pause(topic, partition, 'spend-cap');
    const current = this.until.get(operation);
    if (current && current.resumeAt >= resumeAt) return;
    clearTimeout(current?.timer);
    const timer = setTimeout(
      () => {
        this.until.delete(operation);
        for (const topic of topics)
          for (const partition of this.deps.partitionsOf(topic))
            this.deps.pauses.resume(topic, partition, 'spend-cap');
      },
      Math.max(0, resumeAt - this.now()),
    );
    timer.unref();
    this.until.set(operation, { resumeAt, timer });
  }

  /** A partition just opened: paused at once while its operation's cap is reached. */
  opened(operation: Operation, topic: string, partition: number): void {
    const current = this.until.get(operation);
    if (current && current.resumeAt > this.now()) this.deps.pauses.pause(topic, partition, 'spend-cap');
  }

  stop(): void {
    for (const { timer } of this.until.values()) clearTimeout(timer);
    this.until.clear();
  }

  private now(): number {
    return (this.deps.now ?? Date.now)();
  }
}
