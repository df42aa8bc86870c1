import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PartitionState } from '../../../src/consumers/partition-state.js';
import { TakeWindow } from '../../../src/consumers/take-window.js';
import type { Operation } from '../../../src/contract/operations.js';

function held(count: number): PartitionState[] {
  return Array.from({ length: count }, (_, p) => new PartitionState('requests', p, 'lawsuits-summary'));
}

/** Next offset to take, and oldest offset not yet committed, of each partition. */
const offsets = new WeakMap<PartitionState, { next: number; head: number }>();

function take(state: PartitionState, count: number): void {
  const at = offsets.get(state) ?? { next: 0, head: 0 };
  offsets.set(state, at);
  for (let i = 0; i < count; i += 1) state.tracker.take(String(at.next++));
}

/** Completes and commits the oldest `count` requests the partition holds. */
function commit(state: PartitionState, count: number): void {
  const at = offsets.get(state) ?? { next: 0, head: 0 };
  for (let i = 0; i < count; i += 1) state.tracker.complete(String(at.head++), []);
  state.tracker.drain();
}

/** Takes what `room` allows, as the worker does with one batch. */
function takeBatch(window: TakeWindow, state: PartitionState, offered: number): number {
  const taken = Math.min(offered, window.room(state));
  take(state, taken);
  return taken;
}

describe('TakeWindow', () => {
  it("holds a bulk lane's partitions to the lane's window, a fair share each once full, never the interactive ones", () => {
    const bulk = Array.from({ length: 3 }, (_, p) => new PartitionState('r.bulk', p, 'lawsuits-summary'));
    const interactive = new PartitionState('r', 0, 'lawsuits-summary');
    const states = [...bulk, interactive];
    const [a, b, c] = bulk as [PartitionState, PartitionState, PartitionState];
    const window = new TakeWindow(
      {
        partitionWindow: 1000,
        replicaWindow: 5000,
        bulkWindow: { 'lawsuits-summary': 60 } as Record<Operation, number>,
      },
      () => states,
      (state) => state.topic === 'r.bulk',
    );
    expect(takeBatch(window, a, 500)).toBe(60);
    // Full: the others still take a fair share (60 / 3), so none is paused with nothing held.
    expect(takeBatch(window, b, 500)).toBe(20);
    expect(window.room(a)).toBe(0);
    expect(window.resumable(a)).toBe(false);
    expect(takeBatch(window, interactive, 2000)).toBe(1000);
    commit(a, 60);
    expect(window.resumable(a)).toBe(true);
    expect(window.room(c)).toBe(40);
  });

  it("lets a partition take up to its own window while the replica's has room", () => {
    const states = held(2);
    const [a] = states as [PartitionState];
    const window = new TakeWindow({ partitionWindow: 50, replicaWindow: 1000 }, () => states);
    expect(window.room(a)).toBe(50);
    take(a, 30);
    expect(window.room(a)).toBe(20);
    take(a, 20);
    expect(window.room(a)).toBe(0);
  });

  it('lets one busy partition among idle ones use the whole replica window', () => {
    const states = held(100);
    const [busy] = states as [PartitionState];
    const window = new TakeWindow({ partitionWindow: 2000, replicaWindow: 500 }, () => states);
    expect(takeBatch(window, busy, 10_000)).toBe(500);
    expect(window.room(busy)).toBe(0);
  });

  it('once the replica is full, still lets a partition take up to its fair share, and no more', () => {
    const states = held(4);
    const [first, second, third] = states as [PartitionState, PartitionState, PartitionState];
    const window = new TakeWindow({ partitionWindow: 2000, replicaWindow: 100 }, () => states);
    expect(takeBatch(window, first, 1000)).toBe(100);
    // Share: 100 over 4 partitions.
    expect(takeBatch(window, second, 1000)).toBe(25);
    take(third, 10);
    expect(window.room(third)).toBe(15);
    expect(window.room(first)).toBe(0);
  });

  it('never starves a partition, and the replica never holds more than twice its window', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 300 }),
        fc.integer({ min: 1, max: 3000 }),
        fc.integer({ min: 1, max: 5000 }),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 1, max: 500 }), fc.nat()), { maxLength: 400 }),
        (partitions, partitionWindow, replicaWindow, steps) => {
          const states = held(partitions);
          const window = new TakeWindow({ partitionWindow, replicaWindow }, () => states);
          const share = Math.min(partitionWindow, Math.ceil(replicaWindow / partitions));
          for (const [which, offered, committed] of steps) {
            const state = states[which % partitions] as PartitionState;
            commit(state, committed % (state.tracker.size + 1));
            takeBatch(window, state, offered);
            const { total } = window.use();
            expect(total).toBeLessThanOrEqual(2 * replicaWindow + partitions);
            expect(state.tracker.size).toBeLessThanOrEqual(partitionWindow);
            // A partition under its share may always take.
            for (const other of states)
              if (other.tracker.size < share) expect(window.room(other)).toBeGreaterThan(0);
          }
        },
      ),
    );
  });

  it('resumes a full partition once it is at most half full, against its own window or its share', () => {
    const states = held(4);
    const [own, shared] = states as [PartitionState, PartitionState];
    const window = new TakeWindow({ partitionWindow: 10, replicaWindow: 1000 }, () => states);
    take(own, 10);
    expect(window.resumable(own)).toBe(false);
    commit(own, 4);
    expect(window.resumable(own)).toBe(false);
    commit(own, 1);
    expect(window.resumable(own)).toBe(true);

    // The replica is full: the partition's limit is its share, 40 over 4 partitions.
    const tight = new TakeWindow({ partitionWindow: 1000, replicaWindow: 40 }, () => states);
    commit(own, 5);
    take(states[2] as PartitionState, 30);
    take(shared, 10);
    expect(tight.room(shared)).toBe(0);
    commit(shared, 4);
    expect(tight.resumable(shared)).toBe(false);
    commit(shared, 1);
    expect(tight.resumable(shared)).toBe(true);
  });

  it('always resumes a paused partition by the time its last request is committed', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 300 }),
        fc.integer({ min: 1, max: 3000 }),
        fc.integer({ min: 1, max: 5000 }),
        fc.array(fc.integer({ min: 0, max: 400 }), { minLength: 1, maxLength: 60 }),
        (partitions, partitionWindow, replicaWindow, holds) => {
          const states = held(partitions);
          const window = new TakeWindow({ partitionWindow, replicaWindow }, () => states);
          states.forEach((state, i) => {
            take(state, Math.min(partitionWindow, holds[i % holds.length] ?? 0));
          });
          const [first] = states as [PartitionState];
          commit(first, first.tracker.size);
          expect(window.resumable(first)).toBe(true);
        },
      ),
    );
  });
});
