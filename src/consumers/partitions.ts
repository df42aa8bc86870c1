import type { Admin } from 'kafkajs';
import type { Logger } from 'pino';
import type { Operation } from '../contract/operations.js';
import type { PartitionProducer } from './commit-loop.js';
import type { BreakerPauses } from './breaker-pauses.js';
import type { KeyScheduler } from './key-scheduler.js';
import { PartitionState } from './partition-state.js';
import type { PauseControl } from './pause-control.js';

/**
 * The life cycle of the request partitions this instance holds: opened (with their fenced
 * transactional producer and the committed offset read after fencing) on their first batch,
 * revoked when a rebalance takes them away or their producer is fenced.
 */
export interface PartitionsDeps {
  admin: Pick<Admin, 'fetchOffsets'>;
  settings: { groupId: string; shutdownTimeoutMs: number };
  createProducer(transactionalId: string): PartitionProducer;
  pauses: Pick<PauseControl, 'forget'>;
  breakerPauses: Pick<BreakerPauses, 'opened'>;
  scheduler: Pick<KeyScheduler, 'dropQueued'>;
  logger: Logger;
}

export class Partitions {
  private readonly states = new Map<string, PartitionState>();
  private readonly pending = new Map<string, Promise<PartitionState>>();

  constructor(private readonly deps: PartitionsDeps) {}

  values(): IterableIterator<PartitionState> {
    return this.states.values();
  }

  /** The held partitions of a topic. */
  partitionsOf(topic: string): number[] {
    return [...this.states.values()].filter((s) => s.topic === topic).map((s) => s.partition);
  }

  /** The partition's state, opened once however many batches ask at the same time. */
  stateFor(topic: string, partition: number, operation: Operation): Promise<PartitionState> {
    const id = `${topic}/${partition}`;
    const existing = this.states.get(id);
    if (existing && !existing.isRevoked()) return Promise.resolve(existing);
    let pending = this.pending.get(id);
    if (!pending) {
      pending = this.open(topic, partition, operation).finally(() => this.pending.delete(id));
      this.pending.set(id, pending);
    }
    return pending;
  }

  private async open(topic: string, partition: number, operation: Operation): Promise<PartitionState> {
    const { deps } = this;
    const { groupId } = deps.settings;
    const producer = deps.createProducer(`${groupId}.${topic}.${partition}`);
    const state = new PartitionState(topic, partition, operation, producer);
    await producer.fence();
    // Read the committed offset only after fencing: an earlier owner may have committed
    // between our group join and the fence; nothing below this offset may be done again.
    const offset = await committedOffset(deps.admin, groupId, topic, partition);
    state.highestTaken = BigInt(offset) - 1n;
    deps.breakerPauses.opened(operation, topic, partition);
    this.states.set(state.id, state);
    deps.logger.info({ topic, partition, committed: offset }, 'partition opened');
    return state;
  }

  /** Revokes every held partition the group's new assignment leaves out. */
  assigned(assignment: Record<string, number[] | undefined>): void {
    for (const state of this.states.values()) {
      if (!assignment[state.topic]?.includes(state.partition)) this.revoke(state);
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
    this.deps.pauses.forget(state.topic, state.partition);
    void (state.committing ?? Promise.resolve()).then(() => state.producer.close()).catch(() => undefined);
    this.deps.logger.info({ topic: state.topic, partition: state.partition }, 'partition revoked');
  }

  /** Shutdown past its deadline: work and calls still under way are abandoned. */
  abortAll(): void {
    for (const state of this.states.values()) {
      state.abort.abort(new Error('shutdown'));
      state.callAbort.abort(new Error('shutdown'));
    }
  }

  /** Closes every producer at shutdown, after the last commit. */
  async closeAll(): Promise<void> {
    await Promise.all(
      [...this.states.values()].map((state) => state.producer.close().catch(() => undefined)),
    );
    this.states.clear();
  }
}

/** The group's committed offset of one partition; '-1' when nothing is committed yet. */
export async function committedOffset(
  admin: Pick<Admin, 'fetchOffsets'>,
  groupId: string,
  topic: string,
  partition: number,
): Promise<string> {
  const [committed] = await admin.fetchOffsets({ groupId, topics: [topic] });
  return committed?.partitions.find((p) => p.partition === partition)?.offset ?? '-1';
}
