import { KafkaJS } from '@confluentinc/kafka-javascript';
import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  COMMIT_FAILURE_BUDGET_MS,
  CommitLoop,
  MAX_COMMIT_FAILURES,
} from '../../../src/consumers/commit-loop.js';
import { PartitionState } from '../../../src/consumers/partition-state.js';
import { PauseControl } from '../../../src/consumers/pause-control.js';
import type { OutputRecord } from '../../../src/producers/output-records.js';
import {
  RevokedBeforeCommit,
  type PartitionOffset,
  type TransactionalProducer,
} from '../../../src/consumers/transactional-producer.js';
import { TakeWindow } from '../../../src/consumers/take-window.js';
import { createKafka, type Consumer } from '../../../src/kafka/client.js';

const { ErrorCodes, KafkaJSError } = KafkaJS;

afterEach(() => {
  vi.useRealTimers();
});

interface Transaction {
  records: string[];
  offsets: PartitionOffset[];
  /** The consumer whose group metadata went with the offsets. */
  consumer: Consumer;
}

/**
 * A producer that records each transaction; `fail` makes the next commits throw, `failConnect`
 * the next connects. `calls` lists connects and commits in order. As the real one, it asks the
 * group whether the round's partitions are still held right before the offsets go, and throws
 * RevokedBeforeCommit, committing nothing, when they are not. `hold` keeps the next commit
 * under way (its transaction beginning) until released.
 */
function fakeProducer() {
  const transactions: Transaction[] = [];
  const failures: Error[] = [];
  const connectFailures: Error[] = [];
  const calls: string[] = [];
  const holds: Promise<void>[] = [];
  const producer: Pick<TransactionalProducer, 'commit' | 'connect'> = {
    connect: () => {
      calls.push('connect');
      const failure = connectFailures.shift();
      return failure === undefined ? Promise.resolve() : Promise.reject(failure);
    },
    commit: async (records, offsets, group) => {
      calls.push('commit');
      const hold = holds.shift();
      if (hold) await hold;
      const failure = failures.shift();
      if (failure !== undefined) throw failure;
      if (!group.owns()) throw new RevokedBeforeCommit();
      transactions.push({
        records: records.map((r) => r.value.toString()),
        offsets: [...offsets],
        consumer: group.consumer,
      });
    },
  };
  return {
    producer,
    transactions,
    calls,
    fail: (error: Error) => failures.push(error),
    failConnect: (error: Error) => connectFailures.push(error),
    /** Holds the next commit before its offsets go; the function returned lets it go on. */
    hold: (): (() => void) => {
      let release: () => void = () => undefined;
      holds.push(
        new Promise<void>((resolve) => {
          release = resolve;
        }),
      );
      return release;
    },
  };
}

const record = (text: string): OutputRecord => ({
  topic: 'results',
  key: null,
  value: Buffer.from(text),
  headers: {},
});

/** The group's consumer (never connected: the fake producer only hands it on). */
const CONSUMER = createKafka({ brokers: ['127.0.0.1:1'] }).consumer({ kafkaJS: { groupId: 'g' } });

/** An error as the client reports a broker's refusal of the round's offsets. */
const refusal = (code: number): Error => new KafkaJSError('offsets refused', { code });

function setup(
  partitionWindow = 10,
  spacing: { commitIntervalMs: number; maxCommitIntervalMs: number; failureBudgetMs?: number } = {
    commitIntervalMs: 1000,
    maxCommitIntervalMs: 1000,
  },
) {
  const { producer, transactions, fail, failConnect, calls, hold } = fakeProducer();
  const state = new PartitionState('requests', 3, 'lawsuits-summary');
  const other = new PartitionState('requests', 4, 'lawsuits-summary');
  const resumed: string[] = [];
  const pauses = new PauseControl({
    pause: () => undefined,
    resume: (list) => {
      for (const { topic, partitions } of list) resumed.push(`${topic}/${partitions.join(',')}`);
    },
  });
  const fatal = vi.fn();
  const refused = vi.fn();
  const committed = vi.fn();
  const group: { consumer: Consumer | undefined } = { consumer: CONSUMER };
  /** The group's committed offsets as a stable read answers them; undefined = unstable. */
  const groupOffsets = new Map<number, string | undefined>();
  const loop = new CommitLoop({
    settings: spacing,
    window: new TakeWindow({ partitionWindow, replicaWindow: 1_000_000 }, () => [state, other]),
    partitions: () => [state, other].filter((s) => !s.isRevoked()),
    producer,
    consumer: () => group.consumer,
    committedOffsets: (partitions) => {
      const offsets = new Map<string, string | undefined>();
      for (const { topic, partition } of partitions) {
        calls.push(`offset ${partition}`);
        offsets.set(
          `${topic}/${partition}`,
          groupOffsets.has(partition) ? groupOffsets.get(partition) : '-1',
        );
      }
      return Promise.resolve(offsets);
    },
    pauses,
    logger: pino({ level: 'silent' }),
    metrics: { committed },
    onRefused: refused,
    onFatal: fatal,
  });
  return {
    state,
    other,
    loop,
    transactions,
    fail,
    failConnect,
    hold,
    calls,
    pauses,
    resumed,
    fatal,
    refused,
    committed,
    group,
    groupOffsets,
  };
}

const offsetsOf = (t: Transaction | undefined) => t?.offsets.map((o) => `${o.partition}@${o.offset}`);

describe('CommitLoop', () => {
  it('commits the completed prefix with its outputs in offset order and its next offset in one transaction', async () => {
    const { state, loop, transactions, committed } = setup();
    for (const offset of ['10', '11', '12', '13']) state.tracker.take(offset);
    // Completed out of order; 12 is still under way, so the prefix ends at 11.
    state.tracker.complete('11', [record('r11')]);
    state.tracker.complete('13', [record('r13')]);
    state.tracker.complete('10', [record('r10a'), record('r10b')]);

    await loop.commitRound();

    expect(transactions).toEqual([
      {
        records: ['r10a', 'r10b', 'r11'],
        offsets: [{ topic: 'requests', partition: 3, offset: '12' }],
        consumer: CONSUMER,
      },
    ]);
    // Counted in messages, not records.
    expect(committed).toHaveBeenCalledWith(2);
    expect(state.tracker.size).toBe(2);

    state.tracker.complete('12', [record('r12')]);
    await loop.commitRound();
    expect(transactions[1]?.records).toEqual(['r12', 'r13']);
    expect(offsetsOf(transactions[1])).toEqual(['3@14']);
  });

  it('commits nothing while the first taken offset is incomplete', async () => {
    const { state, loop, transactions } = setup();
    state.tracker.take('5');
    state.tracker.take('6');
    state.tracker.complete('6', [record('r6')]);

    await loop.commitRound();

    expect(transactions).toEqual([]);
  });

  it('carries a failed prefix into the next transaction and gives up once failures outlast the budget', async () => {
    const { state, loop, transactions, fail, fatal } = setup(10, {
      commitIntervalMs: 1000,
      maxCommitIntervalMs: 1000,
      failureBudgetMs: 0,
    });
    const broken = new Error('broker unavailable');
    for (let i = 0; i < MAX_COMMIT_FAILURES; i += 1) fail(broken);
    state.tracker.take('0');
    state.tracker.complete('0', [record('r0')]);

    for (let round = 1; round < MAX_COMMIT_FAILURES; round += 1) {
      await loop.commitRound();
      expect(fatal).not.toHaveBeenCalled();
      state.tracker.take(String(round));
      state.tracker.complete(String(round), [record(`r${round}`)]);
    }
    await loop.commitRound();
    expect(fatal).toHaveBeenCalledTimes(1);
    expect(fatal).toHaveBeenCalledWith(broken);
    expect(transactions).toEqual([]);

    // The broker is back: everything carried goes out in one transaction, nothing lost.
    await loop.commitRound();
    expect(transactions.map((t) => t.records)).toEqual([['r0', 'r1', 'r2', 'r3', 'r4']]);
    expect(offsetsOf(transactions[0])).toEqual(['3@5']);
  });

  it('waits out a broker failover: rounds failing for less than the budget are not fatal', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const { state, loop, transactions, fail, fatal } = setup();
    state.tracker.take('0');
    state.tracker.complete('0', [record('r0')]);
    const leaderless = new KafkaJSError('There is no leader for this topic-partition', {
      code: ErrorCodes.ERR_LEADER_NOT_AVAILABLE,
    });
    // Twenty failed rounds over most of the budget: a leader election and a coordinator moving.
    for (let round = 0; round < 20; round += 1) {
      fail(leaderless);
      await loop.commitRound();
      vi.advanceTimersByTime((COMMIT_FAILURE_BUDGET_MS - 1_000) / 20);
    }
    expect(fatal).not.toHaveBeenCalled();
    await loop.commitRound();
    expect(transactions.map((t) => t.records)).toEqual([['r0']]);

    // The same failures past the budget are fatal.
    state.tracker.take('1');
    state.tracker.complete('1', [record('r1')]);
    for (let round = 0; round < MAX_COMMIT_FAILURES; round += 1) {
      fail(leaderless);
      await loop.commitRound();
      vi.advanceTimersByTime(COMMIT_FAILURE_BUDGET_MS / (MAX_COMMIT_FAILURES - 1));
    }
    expect(fatal).toHaveBeenCalledWith(leaderless);
  });

  it('re-initialises the producer before reading whether a failed transaction committed', async () => {
    const { state, loop, transactions, fail, failConnect, calls, fatal } = setup();
    fail(new Error('EndTxn timed out'));
    state.tracker.take('0');
    state.tracker.complete('0', [record('a')]);
    await loop.commitRound();
    // The coordinator is still moving: the new producer's InitProducerId fails once.
    failConnect(new Error('COORDINATOR_NOT_AVAILABLE'));
    await loop.commitRound();
    expect(transactions).toEqual([]);
    await loop.commitRound();
    expect(transactions.map((t) => t.records)).toEqual([['a']]);
    // No read of the group's offsets before a connect succeeded, and none after a failed one.
    expect(calls).toEqual(['commit', 'connect', 'connect', 'offset 3', 'commit']);
    expect(fatal).not.toHaveBeenCalled();
  });

  it('backs off a little longer after each failed round, with jitter, up to a few seconds', () => {
    const { loop } = setup();
    const delays = (failures: number): number => {
      (loop as unknown as { failures: number }).failures = failures;
      return loop.retryDelayMs();
    };
    for (let i = 0; i < 50; i += 1) {
      expect(delays(1)).toBeGreaterThanOrEqual(50);
      expect(delays(1)).toBeLessThanOrEqual(100);
      expect(delays(4)).toBeGreaterThanOrEqual(400);
      expect(delays(4)).toBeLessThanOrEqual(800);
      expect(delays(30)).toBeLessThanOrEqual(5_000);
      expect(delays(30)).toBeGreaterThanOrEqual(2_500);
    }
  });

  it('resets the failure count after a commit succeeds', async () => {
    const { state, loop, fail, fatal } = setup();
    for (let round = 0; round < MAX_COMMIT_FAILURES * 2; round += 1) {
      if (round % 2 === 0) fail(new Error('timeout'));
      state.tracker.take(String(round));
      state.tracker.complete(String(round), []);
      await loop.commitRound();
    }
    expect(fatal).not.toHaveBeenCalled();
  });

  it("commits every partition with a completed prefix in one transaction, with the group's consumer of now", async () => {
    const { state, other, loop, transactions, committed, group } = setup();
    state.tracker.take('0');
    state.tracker.complete('0', [record('p3')]);
    other.tracker.take('40');
    other.tracker.take('41');
    other.tracker.complete('40', [record('p4a')]);
    other.tracker.complete('41', [record('p4b')]);
    // The group's consumer as the round starts: its group metadata goes with the offsets.
    const current = createKafka({ brokers: ['127.0.0.1:1'] }).consumer({ kafkaJS: { groupId: 'g' } });
    group.consumer = current;

    await loop.commitRound();

    expect(transactions).toHaveLength(1);
    expect(transactions[0]?.records).toEqual(['p3', 'p4a', 'p4b']);
    expect(offsetsOf(transactions[0])).toEqual(['3@1', '4@42']);
    expect(transactions[0]?.consumer).toBe(current);
    expect(committed).toHaveBeenCalledWith(3);
  });

  it('commits nothing before the consumer has joined its group', async () => {
    const { state, loop, transactions, group, calls } = setup();
    group.consumer = undefined;
    state.tracker.take('0');
    state.tracker.complete('0', [record('a')]);

    await loop.commitRound();

    expect(calls).toEqual([]);
    expect(transactions).toEqual([]);
    expect(state.tracker.hasReadyPrefix()).toBe(true);
    // Its first assignment: the work waiting goes with that consumer's group.
    group.consumer = CONSUMER;
    await loop.commitRound();
    expect(transactions.map((t) => t.records)).toEqual([['a']]);
  });

  it('hands the partitions of a round the group refused over to be read again, without counting a failure', async () => {
    const { state, other, loop, transactions, fail, refused, fatal } = setup();
    // Every answer of a group coordinator to offsets from outside its current generation.
    const codes = [
      ErrorCodes.ERR_ILLEGAL_GENERATION,
      ErrorCodes.ERR_UNKNOWN_MEMBER_ID,
      ErrorCodes.ERR_FENCED_INSTANCE_ID,
      ErrorCodes.ERR_REBALANCE_IN_PROGRESS,
      ErrorCodes.ERR_ILLEGAL_GENERATION,
    ];
    expect(codes).toHaveLength(MAX_COMMIT_FAILURES);
    for (const code of codes) fail(refusal(code));
    for (let round = 0; round < MAX_COMMIT_FAILURES; round += 1) {
      state.tracker.take(String(round));
      state.tracker.complete(String(round), [record(`r${round}`)]);
      other.tracker.take(String(round));
      other.tracker.complete(String(round), []);
      await loop.commitRound();
    }

    expect(refused).toHaveBeenCalledTimes(MAX_COMMIT_FAILURES);
    expect(refused).toHaveBeenCalledWith([state, other]);
    expect(fatal).not.toHaveBeenCalled();
    // Nothing refused is carried into a later transaction: the new owner does that work.
    expect(state.carry).toBeUndefined();
    await loop.commitRound();
    expect(transactions).toEqual([]);
  });

  it('does not send again the work of a transaction reported failed that had committed', async () => {
    const { state, loop, transactions, fail, groupOffsets, committed } = setup();
    fail(new Error('EndTxn timed out'));
    state.tracker.take('0');
    state.tracker.complete('0', [record('a')]);
    await loop.commitRound();
    // The broker had committed it: the group's offset is past the carried work.
    groupOffsets.set(3, '1');
    state.tracker.take('1');
    state.tracker.complete('1', [record('b')]);

    await loop.commitRound();

    expect(transactions.map((t) => t.records)).toEqual([['b']]);
    expect(offsetsOf(transactions[0])).toEqual(['3@2']);
    expect(committed.mock.calls).toEqual([[1], [1]]);
  });

  it('resumes a partition its window paused when a transaction reported failed had committed', async () => {
    const { state, loop, transactions, fail, groupOffsets, pauses, resumed } = setup(2);
    fail(new Error('EndTxn timed out'));
    for (const offset of ['0', '1']) state.tracker.take(offset);
    pauses.pause('requests', 3, 'window');
    state.tracker.complete('0', [record('a')]);
    state.tracker.complete('1', [record('b')]);
    await loop.commitRound();
    expect(resumed).toEqual([]);
    // It had committed: nothing left to send, and no later round would include the partition.
    groupOffsets.set(3, '2');
    await loop.commitRound();
    expect(transactions).toEqual([]);
    expect(resumed).toEqual(['requests/3']);
    expect(pauses.isPausedFor('requests', 3, 'window')).toBe(false);
  });

  it('sends no carried work while a transaction still holds its offsets', async () => {
    const { state, loop, transactions, fail, groupOffsets } = setup();
    fail(new Error('EndTxn timed out'));
    state.tracker.take('0');
    state.tracker.complete('0', [record('a')]);
    await loop.commitRound();
    groupOffsets.set(3, undefined);

    await loop.commitRound();
    expect(transactions).toEqual([]);

    groupOffsets.set(3, '0');
    await loop.commitRound();
    expect(transactions.map((t) => t.records)).toEqual([['a']]);
  });

  it('counts a fenced producer as a failed round and carries its work', async () => {
    const { state, loop, transactions, fail, refused } = setup();
    fail(refusal(ErrorCodes.ERR_PRODUCER_FENCED));
    state.tracker.take('0');
    state.tracker.complete('0', [record('a')]);

    await loop.commitRound();
    expect(refused).not.toHaveBeenCalled();
    await loop.commitRound();

    expect(transactions.map((t) => t.records)).toEqual([['a']]);
  });

  it('resumes a partition paused for its window once a commit leaves it at most half full', async () => {
    const { state, loop, pauses, resumed } = setup(4);
    for (const offset of ['0', '1', '2', '3']) state.tracker.take(offset);
    pauses.pause('requests', 3, 'window');

    state.tracker.complete('0', []);
    await loop.commitRound();
    // Room for one, three still held: a fetch now would take one record of it.
    expect(resumed).toEqual([]);

    state.tracker.complete('1', []);
    await loop.commitRound();
    expect(resumed).toEqual(['requests/3']);
    expect(pauses.isPausedFor('requests', 3, 'window')).toBe(false);
  });

  it('commits a completed outcome at once, with no tick to wait for, and nothing while nothing completes', async () => {
    vi.useFakeTimers();
    const { state, loop, transactions } = setup();
    loop.start();
    await vi.advanceTimersByTimeAsync(5000);
    expect(transactions).toHaveLength(0);

    state.tracker.take('0');
    state.tracker.complete('0', [record('a')]);
    loop.completed(state);
    await vi.advanceTimersByTimeAsync(0);
    expect(offsetsOf(transactions[0])).toEqual(['3@1']);
  });

  it('batches what completes while a transaction runs into the next one, at most one per interval', async () => {
    vi.useFakeTimers();
    const { state, loop, transactions } = setup();
    loop.start();
    state.tracker.take('0');
    state.tracker.complete('0', [record('a')]);
    loop.completed(state);
    await vi.advanceTimersByTimeAsync(0);
    for (const offset of ['1', '2', '3']) {
      state.tracker.take(offset);
      state.tracker.complete(offset, [record(offset)]);
      loop.completed(state);
    }
    // The interval (1000 ms) since the first transaction has not passed yet.
    await vi.advanceTimersByTimeAsync(999);
    expect(transactions).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(transactions.map((t) => t.records)).toEqual([['a'], ['1', '2', '3']]);
    expect(offsetsOf(transactions[1])).toEqual(['3@4']);
  });

  it('schedules nothing after stop; the final commit takes everything completed', async () => {
    vi.useFakeTimers();
    const { state, loop, transactions } = setup();
    loop.start();
    loop.stop();
    state.tracker.take('0');
    state.tracker.complete('0', []);
    loop.completed(state);
    await vi.advanceTimersByTimeAsync(5000);
    expect(transactions).toHaveLength(0);

    await loop.commitFinal();
    expect(offsetsOf(transactions[0])).toEqual(['3@1']);
  });

  it('tries a failed transaction again by itself', async () => {
    vi.useFakeTimers();
    const { state, loop, transactions, fail } = setup();
    loop.start();
    fail(new Error('coordinator moved'));
    state.tracker.take('0');
    state.tracker.complete('0', [record('a')]);
    loop.completed(state);
    await vi.advanceTimersByTimeAsync(0);
    expect(transactions).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1000);
    expect(transactions.map((t) => t.records)).toEqual([['a']]);
  });
  describe('spacing between rounds, from the work waiting to be committed', () => {
    const SPACING = { commitIntervalMs: 10, maxCommitIntervalMs: 100 };

    /** Completes `offset` of `state`, reported `workMs` after the service began on it. */
    const complete = (loop: CommitLoop, state: PartitionState, offset: string, workMs: number): void => {
      state.tracker.take(offset);
      state.tracker.complete(offset, [record(offset)]);
      loop.completed(state, workMs);
    };

    /** A started loop with the spacing above, on fake timers. */
    const started = () => {
      vi.useFakeTimers();
      const parts = setup(10, SPACING);
      parts.loop.start();
      return parts;
    };

    it('is a tenth of the shortest time the waiting work took, between the floor and the ceiling', () => {
      const { state, loop } = started();
      expect(loop.spacingMs()).toBe(10);
      complete(loop, state, '0', 50);
      expect(loop.spacingMs()).toBe(10);
      const slow = started();
      complete(slow.loop, slow.state, '0', 400);
      expect(slow.loop.spacingMs()).toBe(40);
      complete(slow.loop, slow.state, '1', 3_000);
      expect(slow.loop.spacingMs()).toBe(40);
      const queued = started();
      complete(queued.loop, queued.state, '0', 3_000);
      expect(queued.loop.spacingMs()).toBe(100);
    });

    it('spaces rounds behind slow work, and a round takes the waiting work with it', async () => {
      const { state, loop, transactions } = started();
      // After a quiet spell the first outcome goes at once.
      complete(loop, state, '0', 400);
      await vi.advanceTimersByTimeAsync(0);
      expect(transactions).toHaveLength(1);
      complete(loop, state, '1', 400);
      complete(loop, state, '2', 450);
      await vi.advanceTimersByTimeAsync(39);
      expect(transactions).toHaveLength(1);
      await vi.advanceTimersByTimeAsync(1);
      expect(transactions.map((t) => t.records)).toEqual([['0'], ['1', '2']]);
      // Taken: what completes next sets the spacing afresh.
      expect(loop.spacingMs()).toBe(10);
    });

    it('brings a scheduled round forward when quicker work completes', async () => {
      const { state, loop, transactions } = started();
      complete(loop, state, '0', 1);
      await vi.advanceTimersByTimeAsync(0);
      complete(loop, state, '1', 2_000);
      await vi.advanceTimersByTimeAsync(20);
      expect(transactions).toHaveLength(1);
      complete(loop, state, '2', 50);
      await vi.advanceTimersByTimeAsync(0);
      expect(transactions.map((t) => t.records)).toEqual([['0'], ['1', '2']]);
    });
  });

  describe('a revocation while a round is under way', () => {
    /** Both partitions with a completed request, and a round held before its offsets go. */
    async function heldRound() {
      const parts = setup();
      const { state, other, loop, calls, hold } = parts;
      state.tracker.take('0');
      state.tracker.complete('0', [record('a')]);
      other.tracker.take('0');
      other.tracker.complete('0', [record('b')]);
      const release = hold();
      const round = loop.commitRound();
      await vi.waitFor(() => {
        expect(calls).toEqual(['commit']);
      });
      return { ...parts, release, round };
    }

    it('settles at once when no round is under way', async () => {
      vi.useFakeTimers();
      const { loop } = setup();
      // No timer advances: the answer cannot come from the timeout.
      expect(await loop.settle(10_000)).toBe(true);
    });

    it('waits for the round under way, and answers false once the timeout passes first', async () => {
      vi.useFakeTimers();
      const { loop, release, round, transactions } = await heldRound();
      let answer: boolean | undefined;
      void loop.settle(10_000).then((settled) => (answer = settled));
      await vi.advanceTimersByTimeAsync(9_999);
      expect(answer).toBeUndefined();
      await vi.advanceTimersByTimeAsync(1);
      expect(answer).toBe(false);

      // Asked again, it waits for the round, and answers as soon as the round ends.
      answer = undefined;
      void loop.settle(10_000).then((settled) => (answer = settled));
      await vi.advanceTimersByTimeAsync(100);
      expect(answer).toBeUndefined();
      release();
      await round;
      await vi.advanceTimersByTimeAsync(0);
      expect(answer).toBe(true);
      expect(transactions.map((t) => t.records)).toEqual([['a', 'b']]);
    });

    it('commits nothing for a round whose partition was revoked before its offsets went, and reads its partitions again', async () => {
      const { state, other, loop, release, round, transactions, refused, fatal, calls, committed } =
        await heldRound();

      // The rebalance callback takes partition 3 away while the round's transaction begins.
      state.markRevoked();
      release();
      await round;

      // RevokedBeforeCommit: no offsets sent under the next generation, where partition 3 may be
      // someone else's, and none of partition 4's either (the round is one transaction).
      expect(transactions).toEqual([]);
      expect(committed).not.toHaveBeenCalled();
      expect(refused).toHaveBeenCalledWith([state, other]);
      expect(fatal).not.toHaveBeenCalled();
      // Handed over to be read again, not carried: nothing of the round is sent later. Nor is
      // it a failed transaction: a round after one connects a new producer first.
      expect(other.carry).toBeUndefined();
      await loop.commitRound();
      expect(transactions).toEqual([]);
      expect(calls).toEqual(['commit']);
    });
  });
});
