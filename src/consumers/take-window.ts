import type { Operation } from '../contract/operations.js';
import type { PartitionState } from './partition-state.js';

export interface TakeWindowSettings {
  /** PARTITION_WINDOW: uncommitted requests one partition may hold. */
  partitionWindow: number;
  /** REPLICA_WINDOW: uncommitted requests all of this replica's partitions may hold together. */
  replicaWindow: number;
  /** LANE_BULK_QUEUE: uncommitted bulk-lane requests of one operation's partitions together. */
  bulkWindow?: Readonly<Record<Operation, number>>;
}

/** What every held partition has taken and not yet committed; per operation, its bulk lane's. */
export interface WindowUse {
  total: number;
  partitions: number;
  bulk: Map<Operation, { total: number; partitions: number }>;
}

/**
 * How many more requests a partition may take before it is paused. Each taken request holds
 * about 1 KiB of heap until its commit, so a per-partition window alone lets memory grow with
 * the partition count: 256 partitions with a window of 2000 took a whole 50k backlog at once.
 *
 * A partition may take up to its own window while the replica holds less than its window;
 * once the replica is full, a partition may still take up to its fair share of the replica's
 * window (the replica's window over the partitions held). So no partition starves behind others
 * that took first, one busy partition among idle ones may use the whole replica window, and the
 * replica holds at most twice its window whatever its partition count (plus one request per
 * partition: the share is rounded up).
 *
 * A bulk lane's partitions are held by one more window of the same shape, per operation
 * (`bulkWindow`): bulk is taken only as fast as its share of the limit sends it, and pauses
 * (resumed as its commits free room, no rebalance) however deep its backlog, so its memory
 * stays flat; the interactive lane's partitions are never held by it.
 */
export class TakeWindow {
  constructor(
    private readonly settings: TakeWindowSettings,
    private readonly partitions: () => Iterable<PartitionState>,
    /** Whether a partition belongs to a bulk lane. */
    private readonly isBulk: (state: PartitionState) => boolean = () => false,
  ) {}

  use(): WindowUse {
    let total = 0;
    let partitions = 0;
    const bulk = new Map<Operation, { total: number; partitions: number }>();
    for (const state of this.partitions()) {
      total += state.tracker.size;
      partitions += 1;
      if (!this.isBulk(state)) continue;
      const lane = bulk.get(state.operation) ?? { total: 0, partitions: 0 };
      lane.total += state.tracker.size;
      lane.partitions += 1;
      bulk.set(state.operation, lane);
    }
    return { total, partitions, bulk };
  }

  /** How many more requests `state` may take now (0: pause it). */
  room(state: PartitionState, use: WindowUse = this.use()): number {
    const { partitionWindow, replicaWindow } = this.settings;
    const own = state.tracker.size;
    const share = Math.ceil(replicaWindow / Math.max(1, use.partitions));
    const room = Math.min(partitionWindow - own, Math.max(replicaWindow - use.total, share - own));
    return Math.max(0, Math.min(room, this.bulkRoom(state, use)));
  }

  /** What the bulk lane's window leaves `state` (unbounded for an interactive partition). */
  private bulkRoom(state: PartitionState, use: WindowUse): number {
    const window = this.settings.bulkWindow?.[state.operation];
    if (window === undefined || !this.isBulk(state)) return Infinity;
    const lane = use.bulk.get(state.operation) ?? { total: 0, partitions: 0 };
    const share = Math.ceil(window / Math.max(1, lane.partitions));
    return Math.max(window - lane.total, share - state.tracker.size);
  }

  /**
   * Whether a partition paused for its window may be fetched again: once it has room for at
   * least as many requests as it still holds (at most half full), not at the first free slot.
   * A resumed partition's fetch decodes up to `maxBytesPerPartition` of records, about 2,900
   * small requests, and the take keeps only what the room allows; the rest is dropped and
   * fetched again after the next resume. Resuming at the first free slot took a few records per
   * fetch under a rate limit, and every taken record kept its whole fetch response alive until
   * its commit.
   */
  resumable(state: PartitionState, use: WindowUse = this.use()): boolean {
    const room = this.room(state, use);
    return room > 0 && room >= state.tracker.size;
  }
}
