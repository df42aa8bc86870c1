import { pino, type Logger } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CommitLoop } from '../../../src/consumers/commit-loop.js';
import type { PartitionOffset } from '../../../src/consumers/transactional-producer.js';
import { KeyScheduler } from '../../../src/consumers/key-scheduler.js';
import { Partitions } from '../../../src/consumers/partitions.js';
import { PauseControl } from '../../../src/consumers/pause-control.js';
import { TakeWindow } from '../../../src/consumers/take-window.js';

afterEach(() => {
  vi.useRealTimers();
});

/** The log start offset of every partition, or what answers it at each read. */
type LogStart = string | (() => string);

const unstable = () => Object.assign(new Error('unstable offsets'), { type: 'UNSTABLE_OFFSET_COMMIT' });

/**
 * An admin answering the committed offsets; `unstableReads` reads first answer
 * UNSTABLE_OFFSET_COMMIT, as the broker does while a pending transaction holds the offsets.
 */
function fakeAdmin(committed: Record<number, string>, unstableReads = 0, low: LogStart = '0') {
  const reads: { requireStable: boolean | undefined; asked: string[] }[] = [];
  const lowReads: string[] = [];
  let left = unstableReads;
  return {
    reads,
    lowReads,
    admin: {
      /** Each partition's log starts at `low` (read at each call when it is a function). */
      fetchTopicOffsets: (topic: string) => {
        lowReads.push(topic);
        const start = typeof low === 'function' ? low() : low;
        return Promise.resolve(
          [0, 1, 2].map((partition) => ({ partition, offset: '100', high: '100', low: start })),
        );
      },
      fetchOffsets: ({
        topics,
        requireStable,
      }: {
        topics?: (string | { topic: string; partitions: number[] })[];
        requireStable?: boolean;
      }) => {
        const asked = (topics ?? []).map((t) =>
          typeof t === 'string' ? t : `${t.topic}/${t.partitions.join(',')}`,
        );
        reads.push({ requireStable, asked });
        if (left > 0) {
          left -= 1;
          return Promise.reject(unstable());
        }
        return Promise.resolve(
          (topics ?? []).map((t) => ({
            topic: typeof t === 'string' ? t : t.topic,
            partitions: Object.entries(committed).map(([partition, offset]) => ({
              partition: Number(partition),
              offset,
              metadata: null,
            })),
          })),
        );
      },
    },
  };
}

function setup(
  committed: Record<number, string> = {},
  unstableReads = 0,
  low: LogStart = '0',
  logger: Logger = pino({ level: 'silent' }),
) {
  const { admin, reads, lowReads } = fakeAdmin(committed, unstableReads, low);
  const paused: string[] = [];
  const resumed: string[] = [];
  const pauses = new PauseControl({
    pause: (list) => paused.push(...list.map((t) => `${t.topic}/${t.partitions.join(',')}`)),
    resume: (list) => resumed.push(...list.map((t) => `${t.topic}/${t.partitions.join(',')}`)),
  });
  const scheduler = new KeyScheduler(1, () => undefined);
  const opened = vi.fn();
  const seeks: string[] = [];
  const partitions = new Partitions({
    admin,
    settings: { groupId: 'g', shutdownTimeoutMs: 1000 },
    pauses,
    opened,
    seek: (topic, partition, offset) => seeks.push(`${topic}/${partition}@${offset}`),
    scheduler,
    logger,
    unstableRetryMs: 100,
    hangingAfterMs: 5_000,
  });
  /** Commits wait until released, recording their offsets. */
  const commits: PartitionOffset[][] = [];
  let release: () => void = () => undefined;
  const loop = new CommitLoop({
    settings: { commitIntervalMs: 1000, maxCommitIntervalMs: 1000 },
    window: new TakeWindow({ partitionWindow: 10, replicaWindow: 1_000_000 }, () => partitions.values()),
    partitions: () => partitions.values(),
    producer: {
      connect: () => Promise.resolve(),
      commit: (_records, offsets) =>
        new Promise<void>((resolve) => {
          release = () => {
            commits.push([...offsets]);
            resolve();
          };
        }),
    },
    member: () => ({ groupId: 'g', generationId: 1, memberId: 'm' }),
    committedOffset: () => Promise.resolve('-1'),
    pauses,
    logger: pino({ level: 'silent' }),
    onRefused: () => undefined,
    onFatal: () => undefined,
  });
  return {
    admin,
    partitions,
    reads,
    lowReads,
    seeks,
    pauses,
    paused,
    resumed,
    scheduler,
    opened,
    loop,
    commits,
    finishCommit: () => {
      release();
    },
  };
}

async function open(partitions: Partitions, partition: number) {
  const state = await partitions.stateFor('requests', partition, 'vehicle', '0');
  if (!state) throw new Error(`partition ${partition} did not open`);
  return state;
}

describe('Partitions', () => {
  it('opens a partition once, from the committed offset read with require_stable', async () => {
    const { partitions, reads, opened } = setup({ 2: '42' });

    const [a, b] = await Promise.all([
      partitions.stateFor('requests', 2, 'vehicle', '40'),
      partitions.stateFor('requests', 2, 'vehicle', '40'),
    ]);

    expect(a).toBe(b);
    // Only this partition: another partition's pending transaction does not hold it back.
    expect(reads).toEqual([{ requireStable: true, asked: ['requests/2'] }]);
    expect(a?.highestTaken).toBe(41n);
    expect(opened).toHaveBeenCalledWith('vehicle', 'requests', 2);
    expect(partitions.partitionsOf('requests')).toEqual([2]);
  });

  it('takes from the beginning a partition the group never committed', async () => {
    const { partitions } = setup();
    const state = await open(partitions, 0);
    expect(state.highestTaken).toBe(-2n);
  });

  it("pauses a partition while an earlier owner's transaction holds its offsets, and resumes it once it ended", async () => {
    vi.useFakeTimers();
    const { partitions, pauses, paused, resumed, reads } = setup({ 0: '7' }, 3);
    partitions.assigned({ requests: [0] });

    expect(await partitions.stateFor('requests', 0, 'vehicle', '0')).toBeUndefined();
    expect(paused).toEqual(['requests/0']);
    expect(pauses.isPausedFor('requests', 0, 'unstable-offsets')).toBe(true);
    // Batches fetched before the pause took effect find it still unopened.
    expect(await partitions.stateFor('requests', 0, 'vehicle', '0')).toBeUndefined();

    // Read again after 100 and 200 ms (still unstable), then after 400 ms: stable.
    await vi.advanceTimersByTimeAsync(300);
    expect(resumed).toEqual([]);
    await vi.advanceTimersByTimeAsync(400);
    expect(resumed).toEqual(['requests/0']);
    expect(reads).toHaveLength(4);

    const state = await open(partitions, 0);
    expect(state.highestTaken).toBe(6n);
  });

  it('reports a partition held by an open transaction past hangingAfterMs, until the transaction ends', async () => {
    vi.useFakeTimers();
    const warnings: { fields: Record<string, unknown>; message: string }[] = [];
    const logger = {
      info: () => undefined,
      warn: (fields: Record<string, unknown>, message: string) => warnings.push({ fields, message }),
    } as unknown as Logger;
    // Unstable for the first 10 reads: about 7 s at 100, 200, 400 ms then 1 s apart.
    const { partitions, resumed } = setup({ 0: '7' }, 10, '0', logger);
    partitions.assigned({ requests: [0, 1] });
    expect(await partitions.stateFor('requests', 0, 'vehicle', '0')).toBeUndefined();

    await vi.advanceTimersByTimeAsync(4_000);
    expect(partitions.heldByHangingTransactions()).toEqual([]);
    expect(warnings).toEqual([]);

    await vi.advanceTimersByTimeAsync(1_500);
    expect(partitions.heldByHangingTransactions()).toEqual([
      { topic: 'requests', partition: 0, heldMs: expect.any(Number) as number },
    ]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.fields).toMatchObject({ topic: 'requests', partition: 0, hangingAfterMs: 5_000 });
    expect(warnings[0]?.message).toMatch(/hanging transaction.*kafka-transactions\.sh find-hanging/);

    await vi.advanceTimersByTimeAsync(5_000);
    expect(resumed).toEqual(['requests/0']);
    expect(partitions.heldByHangingTransactions()).toEqual([]);
    expect(warnings.map((w) => w.message)).toEqual([
      expect.stringMatching(/hanging transaction/),
      'partition no longer held by a hanging transaction',
    ]);
  });

  it('stops waiting for stable offsets of a partition the group has moved elsewhere', async () => {
    vi.useFakeTimers();
    const { partitions, pauses, reads } = setup({}, 100);
    partitions.assigned({ requests: [0] });
    await partitions.stateFor('requests', 0, 'vehicle', '0');

    partitions.assigned({ requests: [] });
    await vi.advanceTimersByTimeAsync(200);

    const readsWhenLeft = reads.length;
    await vi.advanceTimersByTimeAsync(5_000);
    expect(reads).toHaveLength(readsWhenLeft);
    expect(pauses.isPausedFor('requests', 0, 'unstable-offsets')).toBe(false);
  });

  it('ends the wait at once when the partition is assigned elsewhere: no read after it, its pause let go', async () => {
    vi.useFakeTimers();
    const { partitions, pauses, reads } = setup({}, 100);
    partitions.assigned({ requests: [0] });
    await partitions.stateFor('requests', 0, 'vehicle', '0');
    await vi.advanceTimersByTimeAsync(150);
    const readsWhenLeft = reads.length;

    partitions.assigned({ requests: [] });
    expect(pauses.isPausedFor('requests', 0, 'unstable-offsets')).toBe(false);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(reads).toHaveLength(readsWhenLeft);
    expect(partitions.heldByHangingTransactions()).toEqual([]);
  });

  it('stops waiting for stable offsets once stopped', async () => {
    vi.useFakeTimers();
    const { partitions, reads } = setup({}, 100);
    partitions.assigned({ requests: [0] });
    await partitions.stateFor('requests', 0, 'vehicle', '0');
    await vi.advanceTimersByTimeAsync(150);
    const readsWhenStopped = reads.length;
    expect(readsWhenStopped).toBeGreaterThan(1);

    partitions.stop();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(reads).toHaveLength(readsWhenStopped);
  });

  it('revokes what a new assignment leaves out', async () => {
    const { partitions } = setup();
    const kept = await open(partitions, 0);
    const lost = await open(partitions, 1);

    partitions.assigned({ requests: [0] });

    expect(lost.isRevoked()).toBe(true);
    expect(kept.isRevoked()).toBe(false);
    expect([...partitions.values()]).toEqual([kept]);
  });

  it('revokes every partition at once when asked to (a generation passed without us)', async () => {
    const { partitions } = setup();
    const a = await open(partitions, 0);
    const b = await open(partitions, 1);

    partitions.revokeAll();

    expect([a.isRevoked(), b.isRevoked()]).toEqual([true, true]);
    expect([...partitions.values()]).toEqual([]);
  });

  it('publishes nothing for a revoked partition after its in-flight commit', async () => {
    const { partitions, loop, commits, finishCommit } = setup();
    const state = await open(partitions, 0);
    state.tracker.take('0');
    state.tracker.take('1');
    state.tracker.complete('0', []);
    const inFlight = loop.commitRound();

    partitions.revoke(state);
    state.tracker.complete('1', []);
    finishCommit();
    await inFlight;
    await loop.commitRound();

    // Only offset 0 went out (next offset 1): offset 1 completed after the revocation.
    expect(commits).toEqual([[{ topic: 'requests', partition: 0, offset: '1' }]]);
  });

  it('stops queued work at once and aborts calls under way only after the deadline', async () => {
    vi.useFakeTimers();
    const { partitions, scheduler } = setup();
    const state = await open(partitions, 0);
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

  it('drops the pauses of a revoked partition and lets the consumer fetch it again', async () => {
    const { partitions, pauses, resumed } = setup();
    const state = await open(partitions, 0);
    pauses.pause('requests', 0, 'window');
    pauses.pause('requests', 0, 'breaker');

    partitions.revoke(state);

    expect(pauses.paused()).toEqual([]);
    // kafkajs keeps a pause across assignments: were it left, the partition would never be read again.
    expect(resumed).toEqual(['requests/0']);
  });

  it('sets again the pauses its operation wants each time a partition opens', async () => {
    const { partitions, opened } = setup();
    partitions.revoke(await open(partitions, 0));
    await open(partitions, 0);
    expect(opened.mock.calls).toEqual([
      ['vehicle', 'requests', 0],
      ['vehicle', 'requests', 0],
    ]);
  });

  it('takes nothing from a batch fetched past the committed offset and reads the partition again from it', async () => {
    const { partitions, seeks } = setup({ 0: '50' });

    // kafkajs had read up to 100 before the commit was refused.
    expect(await partitions.stateFor('requests', 0, 'vehicle', '100')).toBeUndefined();
    expect(seeks).toEqual(['requests/0@50']);

    const state = await partitions.stateFor('requests', 0, 'vehicle', '50');
    expect(state?.highestTaken).toBe(49n);
    // Read on from there: later batches start wherever kafkajs has got to.
    expect(await partitions.stateFor('requests', 0, 'vehicle', '120')).toBe(state);
    expect(seeks).toHaveLength(1);
  });

  it('takes a batch fetched before the committed offset (what precedes it is skipped as taken)', async () => {
    const { partitions, seeks, lowReads } = setup({ 0: '50' });
    const state = await partitions.stateFor('requests', 0, 'vehicle', '30');
    expect(state?.highestTaken).toBe(49n);
    expect(seeks).toEqual([]);
    expect(lowReads).toEqual([]);
  });

  it('with nothing committed, reads again from the earliest offset unless the batch starts at the log start', async () => {
    const { partitions, seeks } = setup({}, 0, '20');

    expect(await partitions.stateFor('requests', 0, 'vehicle', '35')).toBeUndefined();
    expect(seeks).toEqual(['requests/0@-2']);
    expect(await partitions.stateFor('requests', 0, 'vehicle', '20')).toBeDefined();
  });

  it('reads the log starts once for partitions that open together from the log start', async () => {
    const { partitions, lowReads, seeks } = setup();
    const states = await Promise.all(
      [0, 1, 2].map((partition) => partitions.stateFor('requests', partition, 'vehicle', '0')),
    );
    expect(states.every((state) => state !== undefined)).toBe(true);
    expect(lowReads).toEqual(['requests']);
    // Opened later, from the same log start: the read already covers it.
    partitions.revoke(states[2]!);
    expect(await partitions.stateFor('requests', 2, 'vehicle', '0')).toBeDefined();
    expect(lowReads).toEqual(['requests']);
    expect(seeks).toEqual([]);
  });

  it('reads the log starts again when the last read does not cover a batch, and after a rebalance', async () => {
    let low = '0';
    const { partitions, lowReads, seeks } = setup({}, 0, () => low);
    expect(await partitions.stateFor('requests', 0, 'vehicle', '0')).toBeDefined();

    // Retention has moved every log start to 20 since: the batch starts there.
    low = '20';
    expect(await partitions.stateFor('requests', 1, 'vehicle', '20')).toBeDefined();
    expect(lowReads).toEqual(['requests', 'requests']);
    expect(await partitions.stateFor('requests', 2, 'vehicle', '20')).toBeDefined();
    expect(lowReads).toHaveLength(2);
    expect(seeks).toEqual([]);

    partitions.assigned({ requests: [0, 1] });
    partitions.assigned({ requests: [0, 1, 2] });
    expect(await partitions.stateFor('requests', 2, 'vehicle', '20')).toBeDefined();
    expect(lowReads).toHaveLength(3);
  });

  it('keeps no log start from a read that a rebalance overtook', async () => {
    const { admin, partitions, lowReads } = setup();
    const answer = admin.fetchTopicOffsets;
    let release: (() => void) | undefined;
    admin.fetchTopicOffsets = (topic: string) =>
      new Promise((resolve) => {
        release = () => {
          resolve(answer(topic));
        };
      });
    const opening = partitions.stateFor('requests', 0, 'vehicle', '0');
    await vi.waitFor(() => {
      expect(release).toBeDefined();
    });
    partitions.assigned({ requests: [0, 1] });
    release?.();
    expect(await opening).toBeDefined();

    admin.fetchTopicOffsets = answer;
    expect(await partitions.stateFor('requests', 1, 'vehicle', '0')).toBeDefined();
    expect(lowReads).toHaveLength(2);
  });

  it('takes a batch fetched past a committed offset that retention has deleted', async () => {
    const { partitions, seeks } = setup({ 0: '5' }, 0, '20');
    expect(await partitions.stateFor('requests', 0, 'vehicle', '20')).toBeDefined();
    expect(seeks).toEqual([]);
  });
});
