import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CommitLoop, MAX_COMMIT_FAILURES } from '../../../src/consumers/commit-loop.js';
import { PartitionState } from '../../../src/consumers/partition-state.js';
import { PauseControl } from '../../../src/consumers/pause-control.js';
import type { OutputRecord } from '../../../src/producers/output-records.js';
import type { OffsetToCommit, PartitionProducer } from '../../../src/consumers/commit-loop.js';

afterEach(() => {
  vi.useRealTimers();
});

interface Transaction {
  records: string[];
  offset: OffsetToCommit;
}

/** A producer that records each transaction; `fail` makes the next commits throw. */
function fakeProducer() {
  const transactions: Transaction[] = [];
  const failures: Error[] = [];
  const producer: PartitionProducer & { closed: number } = {
    closed: 0,
    fence: () => Promise.resolve(),
    commit: (records, offset) => {
      const failure = failures.shift();
      if (failure !== undefined) return Promise.reject(failure);
      transactions.push({ records: records.map((r) => r.value.toString()), offset });
      return Promise.resolve();
    },
    close: () => {
      producer.closed += 1;
      return Promise.resolve();
    },
  };
  return { producer, transactions, fail: (error: Error) => failures.push(error) };
}

const record = (text: string): OutputRecord => ({
  topic: 'results',
  key: null,
  value: Buffer.from(text),
  headers: {},
});

function setup(partitionWindow = 10) {
  const { producer, transactions, fail } = fakeProducer();
  const state = new PartitionState('requests', 3, 'lawsuits-summary', producer);
  const resumed: string[] = [];
  const pauses = new PauseControl({
    pause: () => undefined,
    resume: (list) => {
      for (const { topic, partitions } of list) resumed.push(`${topic}/${partitions.join(',')}`);
    },
  });
  const fatal = vi.fn();
  const fenced = vi.fn();
  const committed = vi.fn();
  const loop = new CommitLoop({
    settings: { groupId: 'g', partitionWindow, commitIntervalMs: 1000 },
    partitions: () => (state.isRevoked() ? [] : [state]),
    pauses,
    logger: pino({ level: 'silent' }),
    metrics: { committed },
    onFenced: fenced,
    onFatal: fatal,
  });
  return { state, loop, transactions, fail, pauses, resumed, fatal, fenced, committed };
}

describe('CommitLoop', () => {
  it('commits the completed prefix with its outputs in offset order and its next offset in one transaction', async () => {
    const { state, loop, transactions, committed } = setup();
    for (const offset of ['10', '11', '12', '13']) state.tracker.take(offset);
    // Completed out of order; 12 is still under way, so the prefix ends at 11.
    state.tracker.complete('11', [record('r11')]);
    state.tracker.complete('13', [record('r13')]);
    state.tracker.complete('10', [record('r10a'), record('r10b')]);

    await loop.commitAll();

    expect(transactions).toEqual([
      {
        records: ['r10a', 'r10b', 'r11'],
        offset: { groupId: 'g', topic: 'requests', partition: 3, offset: '12' },
      },
    ]);
    // Counted in messages, not records.
    expect(committed).toHaveBeenCalledWith(2);
    expect(state.tracker.size).toBe(2);

    state.tracker.complete('12', [record('r12')]);
    await loop.commitAll();
    expect(transactions[1]).toEqual({
      records: ['r12', 'r13'],
      offset: { groupId: 'g', topic: 'requests', partition: 3, offset: '14' },
    });
  });

  it('commits nothing while the first taken offset is incomplete', async () => {
    const { state, loop, transactions } = setup();
    state.tracker.take('5');
    state.tracker.take('6');
    state.tracker.complete('6', [record('r6')]);

    await loop.commitAll();

    expect(transactions).toEqual([]);
  });

  it('carries a failed prefix into the next transaction and gives up after the limit', async () => {
    const { state, loop, transactions, fail, fatal } = setup();
    const broken = new Error('broker unavailable');
    for (let i = 0; i < MAX_COMMIT_FAILURES; i += 1) fail(broken);
    state.tracker.take('0');
    state.tracker.complete('0', [record('r0')]);

    for (let round = 1; round < MAX_COMMIT_FAILURES; round += 1) {
      await loop.commitAll();
      expect(fatal).not.toHaveBeenCalled();
      state.tracker.take(String(round));
      state.tracker.complete(String(round), [record(`r${round}`)]);
    }
    await loop.commitAll();
    expect(fatal).toHaveBeenCalledTimes(1);
    expect(fatal).toHaveBeenCalledWith(broken);
    expect(transactions).toEqual([]);

    // The broker is back: everything carried goes out in one transaction, nothing lost.
    await loop.commitAll();
    expect(transactions).toEqual([
      {
        records: ['r0', 'r1', 'r2', 'r3', 'r4'],
        offset: { groupId: 'g', topic: 'requests', partition: 3, offset: '5' },
      },
    ]);
  });

  it('resets the failure count after a commit succeeds', async () => {
    const { state, loop, fail, fatal } = setup();
    for (let round = 0; round < MAX_COMMIT_FAILURES * 2; round += 1) {
      if (round % 2 === 0) fail(new Error('timeout'));
      state.tracker.take(String(round));
      state.tracker.complete(String(round), []);
      await loop.commitAll();
    }
    expect(fatal).not.toHaveBeenCalled();
  });

  it('hands a fenced partition over instead of counting a failure', async () => {
    const { state, loop, fail, fenced, fatal } = setup();
    fail(Object.assign(new Error('fenced'), { type: 'PRODUCER_FENCED' }));
    state.tracker.take('0');
    state.tracker.complete('0', []);

    await loop.commitAll();

    expect(fenced).toHaveBeenCalledWith(state);
    expect(state.commitFailures).toBe(0);
    expect(fatal).not.toHaveBeenCalled();
  });

  it('resumes a partition paused for its window once the commit leaves room', async () => {
    const { state, loop, pauses, resumed } = setup(2);
    state.tracker.take('0');
    state.tracker.take('1');
    pauses.pause('requests', 3, 'window');
    state.tracker.complete('0', []);

    await loop.commitAll();

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
    expect(transactions.map((t) => t.offset.offset)).toEqual(['1']);
  });

  it('batches what completes while a transaction runs into the next one, one per partition per interval', async () => {
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
    expect(transactions[1]?.offset.offset).toBe('4');
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
    expect(transactions.map((t) => t.offset.offset)).toEqual(['1']);
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
});
