import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CommitLoop } from '../../../src/consumers/commit-loop.js';
import { OperationSchedulers } from '../../../src/consumers/operation-schedulers.js';
import type { Operation } from '../../../src/contract/operations.js';
import { PartitionState } from '../../../src/consumers/partition-state.js';
import { PauseControl } from '../../../src/consumers/pause-control.js';
import type { ProcessDeps } from '../../../src/requests/process-request.js';
import { Worker, type BatchPayload } from '../../../src/consumers/worker.js';
import { topicNames } from '../../../src/contract/operations.js';
import { plainJsonCodec } from '../../../src/producers/value-codec.js';
import { fakeProcessDeps } from '../../helpers/fake-process-deps.js';
import { TakeWindow } from '../../../src/consumers/take-window.js';
import { createKafka, type KafkaMessage } from '../../../src/kafka/client.js';

const topics = topicNames('t');
const TOPIC = topics.request('lawsuits-summary');
const now = () => new Date('2026-11-21T10:00:00.000Z');

const message = (offset: number, key: string | null, value: string | null = null): KafkaMessage => ({
  key: key === null ? null : Buffer.from(key),
  value: value === null ? null : Buffer.from(value),
  timestamp: '0',
  attributes: 0,
  offset: String(offset),
  headers: {},
});

function batch(messages: KafkaMessage[]) {
  const resolved: string[] = [];
  const payload: BatchPayload = {
    batch: { topic: TOPIC, partition: 0, messages },
    isRunning: () => true,
    isStale: () => false,
    resolveOffset: (offset) => resolved.push(offset),
  };
  return { payload, resolved };
}

/** Nothing here may be reached by the unreadable messages these tests send. */
const processDeps = (): ProcessDeps => fakeProcessDeps(now);

function setup(
  partitionWindow: number,
  scheduler: Pick<OperationSchedulers, 'submit'>,
  replicaWindow = 1_000_000,
  process: ProcessDeps = processDeps(),
) {
  const state = new PartitionState(TOPIC, 0, 'lawsuits-summary');
  state.highestTaken = 9n;
  const fetching = { paused: 0, resumed: 0 };
  const pauses = new PauseControl({
    pause: () => (fetching.paused += 1),
    resume: () => (fetching.resumed += 1),
  });
  const outcome = vi.fn();
  const window = new TakeWindow({ partitionWindow, replicaWindow }, () => [state]);
  const worker = new Worker({
    topics,
    window,
    partitions: { stateFor: () => Promise.resolve(state) },
    scheduler,
    pauses,
    breakerPauses: { admit: () => true },
    process,
    output: { codec: plainJsonCodec(), topics, source: '/test', resultMaxBytes: 1_000_000, now },
    logger: pino({ level: 'silent' }),
    metrics: { outcome },
    isStopping: () => false,
  });
  const consumer = createKafka({ brokers: ['127.0.0.1:1'] }).consumer({ kafkaJS: { groupId: 'g' } });
  const loop = new CommitLoop({
    settings: { commitIntervalMs: 1000, maxCommitIntervalMs: 1000 },
    window,
    partitions: () => [state],
    producer: { commit: () => Promise.resolve(), connect: () => Promise.resolve() },
    consumer: () => consumer,
    committedOffsets: () => Promise.resolve(new Map<string, string | undefined>()),
    pauses,
    logger: pino({ level: 'silent' }),
    onRefused: () => undefined,
    onFatal: () => undefined,
  });
  return { worker, state, pauses, fetching, loop, outcome };
}

/** Holds submitted work without running it. */
function heldScheduler() {
  const submitted: {
    operation: Operation;
    key: string | undefined;
    scope: string;
    run: () => Promise<void>;
  }[] = [];
  return {
    submitted,
    submit: (operation: Operation, key: string | undefined, scope: string, run: () => Promise<void>) => {
      submitted.push({ operation, key, scope, run });
    },
  };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('Worker', () => {
  it.each([
    { full: 'its own window', partitionWindow: 2, replicaWindow: 1_000_000 },
    { full: "the replica's window", partitionWindow: 10, replicaWindow: 2 },
  ])(
    'pauses a partition once $full is full, leaving the rest unresolved, and resumes it once drained',
    async ({ partitionWindow, replicaWindow }) => {
      const scheduler = heldScheduler();
      const { worker, state, pauses, fetching, loop } = setup(partitionWindow, scheduler, replicaWindow);
      const { payload, resolved } = batch([message(10, 'a'), message(11, 'b'), message(12, 'a')]);

      await worker.takeBatch(payload);

      expect(resolved).toEqual(['10', '11']);
      expect(scheduler.submitted).toHaveLength(2);
      expect(pauses.isPausedFor(TOPIC, 0, 'window')).toBe(true);
      expect(fetching).toEqual({ paused: 1, resumed: 0 });

      await loop.commitRound();
      expect(fetching.resumed).toBe(0);

      for (const task of scheduler.submitted) await task.run();
      await loop.commitRound();
      expect(state.tracker.size).toBe(0);
      expect(pauses.isPausedFor(TOPIC, 0, 'window')).toBe(false);
      expect(fetching).toEqual({ paused: 1, resumed: 1 });
    },
  );

  it('skips messages at or below the last taken offset and schedules the others by partition and key', async () => {
    const scheduler = heldScheduler();
    const { worker, state } = setup(10, scheduler);
    const { payload, resolved } = batch([
      message(8, 'a'),
      message(9, 'a'),
      message(10, 'a'),
      message(11, null),
    ]);

    await worker.takeBatch(payload);

    expect(resolved).toEqual(['8', '9', '10', '11']);
    expect(scheduler.submitted.map(({ operation, key, scope }) => ({ operation, key, scope }))).toEqual([
      { operation: 'lawsuits-summary', key: `${state.id}\u0000a`, scope: state.id },
      { operation: 'lawsuits-summary', key: undefined, scope: state.id },
    ]);
    expect(state.highestTaken).toBe(11n);
  });

  it('completes an unreadable message with one dead letter for the errors topic', async () => {
    const scheduler = new OperationSchedulers(4, (error) => {
      throw error;
    });
    const { worker, state, outcome } = setup(10, scheduler);
    const { payload } = batch([message(10, 'a', null), message(11, 'a', '{"requestId":')]);

    await worker.takeBatch(payload);
    await scheduler.idle();

    const prefix = state.takePrefix();
    expect(prefix?.nextOffset).toBe('12');
    expect(prefix?.outputs.map((r) => r.topic)).toEqual([topics.errors, topics.errors]);
    const letters = prefix?.outputs.map((r) => JSON.parse(r.value.toString()) as { error: { kind: string } });
    expect(letters?.map((l) => l.error.kind)).toEqual(['invalid_request', 'invalid_request']);
    // Counted once committed, not when reached: a commit a rebalance loses is made again, and
    // counted, by the partition's next owner.
    expect(outcome).not.toHaveBeenCalled();
    state.committed(prefix?.nextOffset ?? '0', Date.now());
    expect(outcome).toHaveBeenCalledTimes(2);
    expect(outcome).toHaveBeenCalledWith('lawsuits-summary', 'error', 'invalid_request');
  });

  it('completes nothing for a partition revoked while its message was under way', async () => {
    const scheduler = heldScheduler();
    const { worker, state } = setup(10, scheduler);
    await worker.takeBatch(batch([message(10, 'a')]).payload);

    state.markRevoked();
    await scheduler.submitted[0]!.run();

    expect(state.takePrefix()).toBeUndefined();
  });

  it('stops waiting to try a message again once its partition is revoked', async () => {
    // The clock stands still: the worker's wait before the next try can only end by the abort.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let tries = 0;
    let failed: () => void = () => undefined;
    const firstFailure = new Promise<void>((resolve) => (failed = resolve));
    const failing: ProcessDeps = {
      ...processDeps(),
      parseParams: () => {
        tries += 1;
        failed();
        throw new Error('redis down');
      },
    };
    const scheduler = heldScheduler();
    const { worker, state } = setup(10, scheduler, 1_000_000, failing);
    const request = { requestId: 'req-1', params: { taxId: '11144477735' }, source: 'onboarding' };
    await worker.takeBatch(batch([message(10, 'a', JSON.stringify(request))]).payload);

    const running = scheduler.submitted[0]!.run();
    await firstFailure;
    state.markRevoked();
    state.abort.abort(new Error('partition revoked'));

    await expect(running).resolves.toBeUndefined();
    expect(tries).toBe(1);
    expect(state.takePrefix()).toBeUndefined();
  });
});
