import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CommitLoop } from '../../../src/consumers/commit-loop.js';
import { KeyScheduler } from '../../../src/consumers/key-scheduler.js';
import { Partitions } from '../../../src/consumers/partitions.js';
import { PauseControl } from '../../../src/consumers/pause-control.js';
import type { OffsetToCommit, PartitionProducer } from '../../../src/consumers/commit-loop.js';

afterEach(() => {
  vi.useRealTimers();
});

/** A producer whose commits wait until released, recording what it was asked to do. */
class FakeProducer implements PartitionProducer {
  readonly committedOffsets: string[] = [];
  private release: (() => void) | undefined;

  constructor(
    readonly transactionalId: string,
    private readonly calls: string[],
  ) {}

  fence(): Promise<void> {
    this.calls.push('fence');
    return Promise.resolve();
  }

  commit(_records: unknown, offset: OffsetToCommit): Promise<void> {
    this.calls.push('commit');
    return new Promise((resolve) => {
      this.release = () => {
        this.committedOffsets.push(offset.offset);
        resolve();
      };
    });
  }

  finishCommit(): void {
    this.release?.();
  }

  close(): Promise<void> {
    this.calls.push('close');
    return Promise.resolve();
  }
}

function setup(committed: Record<number, string> = {}) {
  const producers: FakeProducer[] = [];
  const calls: string[] = [];
  const pauses = new PauseControl({ pause: () => undefined, resume: () => undefined });
  const scheduler = new KeyScheduler(1, () => undefined);
  const opened = vi.fn();
  const partitions = new Partitions({
    admin: {
      fetchOffsets: ({ topics }) => {
        calls.push('fetchOffsets');
        return Promise.resolve(
          (topics ?? []).map((topic) => ({
            topic,
            partitions: Object.entries(committed).map(([partition, offset]) => ({
              partition: Number(partition),
              offset,
              metadata: null,
            })),
          })),
        );
      },
    },
    settings: { groupId: 'g', shutdownTimeoutMs: 1000 },
    createProducer: (id) => {
      const producer = new FakeProducer(id, calls);
      producers.push(producer);
      return producer;
    },
    pauses,
    breakerPauses: { opened },
    scheduler,
    logger: pino({ level: 'silent' }),
  });
  const loop = new CommitLoop({
    settings: { groupId: 'g', partitionWindow: 10, commitIntervalMs: 1000 },
    partitions: () => partitions.values(),
    pauses,
    logger: pino({ level: 'silent' }),
    onFenced: (state) => {
      partitions.revoke(state);
    },
    onFatal: () => undefined,
  });
  return { partitions, producers, calls, pauses, scheduler, opened, loop };
}

describe('Partitions', () => {
  it('opens a partition once: its own producer fenced first, then the committed offset read', async () => {
    const { partitions, producers, calls, opened } = setup({ 2: '42' });

    const [a, b] = await Promise.all([
      partitions.stateFor('requests', 2, 'vehicle'),
      partitions.stateFor('requests', 2, 'vehicle'),
    ]);

    expect(a).toBe(b);
    expect(producers.map((p) => p.transactionalId)).toEqual(['g.requests.2']);
    expect(calls).toEqual(['fence', 'fetchOffsets']);
    expect(a.highestTaken).toBe(41n);
    expect(opened).toHaveBeenCalledWith('vehicle', 'requests', 2);
    expect(partitions.partitionsOf('requests')).toEqual([2]);
  });

  it('takes from the beginning a partition the group never committed', async () => {
    const { partitions } = setup();
    const state = await partitions.stateFor('requests', 0, 'vehicle');
    expect(state.highestTaken).toBe(-2n);
  });

  it('revokes what a new assignment leaves out', async () => {
    const { partitions } = setup();
    const kept = await partitions.stateFor('requests', 0, 'vehicle');
    const lost = await partitions.stateFor('requests', 1, 'vehicle');

    partitions.assigned({ requests: [0] });

    expect(lost.isRevoked()).toBe(true);
    expect(kept.isRevoked()).toBe(false);
    expect([...partitions.values()]).toEqual([kept]);
  });

  it('publishes nothing for a revoked partition and closes its producer after its in-flight commit', async () => {
    const { partitions, producers, calls, loop } = setup();
    const state = await partitions.stateFor('requests', 0, 'vehicle');
    const [producer] = producers;
    state.tracker.take('0');
    state.tracker.take('1');
    state.tracker.complete('0', []);
    const inFlight = loop.commitAll();

    partitions.revoke(state);
    state.tracker.complete('1', []);
    await loop.commitAll();
    await Promise.resolve();
    expect(calls).toEqual(['fence', 'fetchOffsets', 'commit']);

    producer!.finishCommit();
    await inFlight;
    await vi.waitFor(() => {
      expect(calls).toEqual(['fence', 'fetchOffsets', 'commit', 'close']);
    });
    // Only offset 0 went out (next offset 1): offset 1 completed after the revocation.
    expect(producer!.committedOffsets).toEqual(['1']);
    await loop.commitAll();
    expect(calls.filter((c) => c === 'commit')).toHaveLength(1);
  });

  it('stops queued work at once and aborts calls under way only after the deadline', async () => {
    vi.useFakeTimers();
    const { partitions, scheduler } = setup();
    const state = await partitions.stateFor('requests', 0, 'vehicle');
    const ran: string[] = [];
    let finishFirst: () => void = () => undefined;
    scheduler.submit(undefined, state.id, () => new Promise<void>((resolve) => (finishFirst = resolve)));
    scheduler.submit(undefined, state.id, () => {
      ran.push('queued');
      return Promise.resolve();
    });

    partitions.revoke(state);

    expect(state.abort.signal.aborted).toBe(true);
    expect(state.callAbort.signal.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1000);
    expect(state.callAbort.signal.aborted).toBe(true);
    finishFirst();
    await scheduler.idle();
    expect(ran).toEqual([]);
  });

  it('forgets the pauses of a revoked partition', async () => {
    const { partitions, pauses } = setup();
    const state = await partitions.stateFor('requests', 0, 'vehicle');
    pauses.pause('requests', 0, 'window');

    partitions.revoke(state);

    expect(pauses.paused()).toEqual([]);
  });
});
