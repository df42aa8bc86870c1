import type { Logger } from 'pino';
import type { PartitionState } from './partition-state.js';
import type { PauseControl } from './pause-control.js';

/**
 * Every `commitIntervalMs`, drains each partition's contiguous completed prefix and commits it
 * with its outputs in one transaction on the partition's own producer. A failed commit is
 * carried to the next round; repeated failures are fatal, a fenced producer revokes the partition.
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

export class CommitLoop {
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(private readonly deps: CommitLoopDeps) {}

  start(): void {
    this.timer = setTimeout(() => {
      void this.commitAll().finally(() => {
        if (!this.stopped) this.start();
      });
    }, this.deps.settings.commitIntervalMs);
  }

  /** No round is scheduled after this; one already due still runs. */
  stop(): void {
    this.stopped = true;
  }

  /** The last commit at shutdown, once in-flight work has finished or been abandoned. */
  async commitFinal(): Promise<void> {
    this.stop();
    clearTimeout(this.timer);
    await this.commitAll();
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
      })
      .finally(() => {
        state.committing = undefined;
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
