import { KafkaJS, type LibrdKafkaError } from '@confluentinc/kafka-javascript';
import { pino, type Logger } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CommitLoop } from '../../../src/consumers/commit-loop.js';
import type { PartitionOffset } from '../../../src/consumers/transactional-producer.js';
import { KeyScheduler } from '../../../src/consumers/key-scheduler.js';
import {
  Partitions,
  stableCommittedOffset,
  stableCommittedOffsets,
} from '../../../src/consumers/partitions.js';
import { PauseControl } from '../../../src/consumers/pause-control.js';
import { TakeWindow } from '../../../src/consumers/take-window.js';
import { createKafka, type OffsetsAdmin } from '../../../src/kafka/client.js';

const { ErrorCodes, KafkaJSError } = KafkaJS;

afterEach(() => {
  vi.useRealTimers();
});

/** A partition's error in a fetchOffsets answer, as the client reports it. */
const partitionError = (code: number): LibrdKafkaError => ({
  message: `error ${code}`,
  code,
  errno: code,
  origin: 'kafka',
});

/** The whole call's failure: the broker answered UNSTABLE_OFFSET_COMMIT for the group. */
const unstable = () => new KafkaJSError('unstable offsets', { code: ErrorCodes.ERR_UNSTABLE_OFFSET_COMMIT });

/**
 * An admin answering the committed offsets; `unstableReads` reads first answer
 * UNSTABLE_OFFSET_COMMIT, as the broker does while a pending transaction holds the offsets.
 */
function fakeAdmin(committed: Record<number, string>, unstableReads = 0) {
  const reads: { requireStableOffsets: boolean | undefined; asked: string[] }[] = [];
  let left = unstableReads;
  const admin: OffsetsAdmin = {
    fetchOffsets: ({ topics, requireStableOffsets }) => {
      const asked = (topics ?? []).map((t) =>
        typeof t === 'string' ? t : `${t.topic}/${t.partitions.join(',')}`,
      );
      reads.push({ requireStableOffsets, asked });
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
            leaderEpoch: null,
            error: null,
          })),
        })),
      );
    },
  };
  return { reads, admin };
}

function setup(
  committed: Record<number, string> = {},
  unstableReads = 0,
  logger: Logger = pino({ level: 'silent' }),
) {
  const { admin, reads } = fakeAdmin(committed, unstableReads);
  const paused: string[] = [];
  const resumed: string[] = [];
  const pauses = new PauseControl({
    pause: (list) => paused.push(...list.map((t) => `${t.topic}/${t.partitions.join(',')}`)),
    resume: (list) => resumed.push(...list.map((t) => `${t.topic}/${t.partitions.join(',')}`)),
  });
  const scheduler = new KeyScheduler(1, () => undefined);
  const opened = vi.fn();
  const partitions = new Partitions({
    admin,
    settings: { groupId: 'g', shutdownTimeoutMs: 1000 },
    pauses,
    opened,
    scheduler,
    logger,
    unstableRetryMs: 100,
    hangingAfterMs: 5_000,
  });
  /** Commits wait until released, recording their offsets. */
  const commits: PartitionOffset[][] = [];
  let release: () => void = () => undefined;
  const consumer = createKafka({ brokers: ['127.0.0.1:1'] }).consumer({ kafkaJS: { groupId: 'g' } });
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
    consumer: () => consumer,
    committedOffsets: () => Promise.resolve(new Map<string, string | undefined>()),
    pauses,
    logger: pino({ level: 'silent' }),
    onRefused: () => undefined,
    onFatal: () => undefined,
  });
  return {
    admin,
    partitions,
    reads,
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
  const state = await partitions.stateFor('requests', partition, 'vehicle');
  if (!state) throw new Error(`partition ${partition} did not open`);
  return state;
}

describe('Partitions', () => {
  it('opens a partition once, from the committed offset read with require_stable', async () => {
    const { partitions, reads, opened } = setup({ 2: '42' });

    const [a, b] = await Promise.all([
      partitions.stateFor('requests', 2, 'vehicle'),
      partitions.stateFor('requests', 2, 'vehicle'),
    ]);

    expect(a).toBe(b);
    // Only this partition: another partition's pending transaction does not hold it back.
    expect(reads).toEqual([{ requireStableOffsets: true, asked: ['requests/2'] }]);
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

    expect(await partitions.stateFor('requests', 0, 'vehicle')).toBeUndefined();
    expect(paused).toEqual(['requests/0']);
    expect(pauses.isPausedFor('requests', 0, 'unstable-offsets')).toBe(true);
    // Batches fetched before the pause took effect find it still unopened.
    expect(await partitions.stateFor('requests', 0, 'vehicle')).toBeUndefined();

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
    const { partitions, resumed } = setup({ 0: '7' }, 10, logger);
    partitions.assigned({ requests: [0, 1] });
    expect(await partitions.stateFor('requests', 0, 'vehicle')).toBeUndefined();

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
    await partitions.stateFor('requests', 0, 'vehicle');

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
    await partitions.stateFor('requests', 0, 'vehicle');
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
    await partitions.stateFor('requests', 0, 'vehicle');
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

  it('revokes every partition at once when asked to', async () => {
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
    // A pause outlives a refused commit (the partition stays assigned): were it left, the
    // partition would never be read again.
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
});

describe('stableCommittedOffset', () => {
  /** An admin whose one answer for partition 0 of 'requests' is `entry`. */
  const answering = (entry: { offset: string; error: LibrdKafkaError | null }) => {
    const asked: Parameters<OffsetsAdmin['fetchOffsets']>[0][] = [];
    const admin: OffsetsAdmin = {
      fetchOffsets: (options) => {
        asked.push(options);
        return Promise.resolve([
          {
            topic: 'requests',
            partitions: [
              // Another partition's answer, which must not be taken for this one's.
              { partition: 1, offset: '99', metadata: null, leaderEpoch: null, error: null },
              { partition: 0, metadata: null, leaderEpoch: null, ...entry },
            ],
          },
        ]);
      },
    };
    return { admin, asked };
  };

  it("reads this partition alone, with require_stable, and answers the group's offset", async () => {
    const { admin, asked } = answering({ offset: '42', error: null });
    expect(await stableCommittedOffset(admin, 'g', 'requests', 0)).toBe('42');
    expect(asked).toEqual([
      { groupId: 'g', topics: [{ topic: 'requests', partitions: [0] }], requireStableOffsets: true },
    ]);
  });

  it("answers '-1' for the client's 'no offset' (-1001)", async () => {
    const { admin } = answering({ offset: '-1001', error: null });
    expect(await stableCommittedOffset(admin, 'g', 'requests', 0)).toBe('-1');
  });

  it('answers nothing while a pending transaction holds the offset, reported for the partition or for the call', async () => {
    const held = answering({ offset: '-1', error: partitionError(ErrorCodes.ERR_UNSTABLE_OFFSET_COMMIT) });
    expect(await stableCommittedOffset(held.admin, 'g', 'requests', 0)).toBeUndefined();
    const refused: OffsetsAdmin = { fetchOffsets: () => Promise.reject(unstable()) };
    expect(await stableCommittedOffset(refused, 'g', 'requests', 0)).toBeUndefined();
  });

  it("throws any other error, the partition's or the call's", async () => {
    const { admin } = answering({
      offset: '-1',
      error: partitionError(ErrorCodes.ERR_GROUP_AUTHORIZATION_FAILED),
    });
    await expect(stableCommittedOffset(admin, 'g', 'requests', 0)).rejects.toMatchObject({
      code: ErrorCodes.ERR_GROUP_AUTHORIZATION_FAILED,
    });
    const down = new KafkaJSError('transport failure', { code: ErrorCodes.ERR__TRANSPORT });
    const failing: OffsetsAdmin = { fetchOffsets: () => Promise.reject(down) };
    await expect(stableCommittedOffset(failing, 'g', 'requests', 0)).rejects.toBe(down);
  });

  it('reads a stable read that timed out (a transaction still holds the offsets) as not stable yet', async () => {
    const held = new KafkaJSError('timed out', { code: ErrorCodes.ERR__TIMED_OUT });
    const waiting: OffsetsAdmin = { fetchOffsets: () => Promise.reject(held) };
    expect(await stableCommittedOffset(waiting, 'g', 'requests', 0)).toBeUndefined();
  });
});

describe('stableCommittedOffsets', () => {
  it('reads several partitions of several topics in one request, with require_stable', async () => {
    const asked: unknown[] = [];
    const admin: OffsetsAdmin = {
      fetchOffsets: (args) => {
        asked.push(args);
        return Promise.resolve([
          {
            topic: 'a',
            partitions: [
              { partition: 0, offset: '7', metadata: null, leaderEpoch: null, error: null },
              { partition: 1, offset: '-1001', metadata: null, leaderEpoch: null, error: null },
            ],
          },
        ]);
      },
    };
    const offsets = await stableCommittedOffsets(admin, 'g', [
      { topic: 'a', partition: 0 },
      { topic: 'a', partition: 1 },
      { topic: 'b', partition: 2 },
    ]);
    expect(asked).toEqual([
      {
        groupId: 'g',
        topics: [
          { topic: 'a', partitions: [0, 1] },
          { topic: 'b', partitions: [2] },
        ],
        requireStableOffsets: true,
      },
    ]);
    expect([...offsets]).toEqual([
      ['a/0', '7'],
      ['a/1', '-1'],
    ]);
  });

  it('answers none of them when the read waited too long for a transaction that holds them', async () => {
    const held = new KafkaJS.KafkaJSError('timed out', { code: KafkaJS.ErrorCodes.ERR__TIMED_OUT });
    const admin: OffsetsAdmin = { fetchOffsets: () => Promise.reject(held) };
    expect((await stableCommittedOffsets(admin, 'g', [{ topic: 'a', partition: 0 }])).size).toBe(0);
  });
});
