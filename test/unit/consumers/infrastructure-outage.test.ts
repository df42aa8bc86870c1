/**
 * A schema registry outage shorter than a minute never makes a replica exit: the output of a
 * request whose framing id cannot be checked is tried again until the registry answers. Six
 * tries in all (about 12 s) used to end in "runtime cannot go on".
 */
import { pino } from 'pino';
import { afterEach, expect, it, vi } from 'vitest';
import { OperationSchedulers } from '../../../src/consumers/operation-schedulers.js';
import { PartitionState } from '../../../src/consumers/partition-state.js';
import { PauseControl } from '../../../src/consumers/pause-control.js';
import { TakeWindow } from '../../../src/consumers/take-window.js';
import { INFRASTRUCTURE_RETRY, Worker } from '../../../src/consumers/worker.js';
import { topicNames } from '../../../src/contract/operations.js';
import type { KafkaMessage } from '../../../src/kafka/client.js';
import { plainJsonCodec, RegistryUnavailable, type ValueCodec } from '../../../src/producers/value-codec.js';
import { fakeProcessDeps } from '../../helpers/fake-process-deps.js';

const topics = topicNames('t');
const TOPIC = topics.request('lawsuits-summary');
const now = () => new Date('2026-11-21T10:00:00.000Z');

afterEach(() => {
  vi.useRealTimers();
});

/** A codec whose encode fails as an unreachable registry's does until `downUntil`. */
function codecDownUntil(downUntil: number): ValueCodec & { failures: number } {
  const plain = plainJsonCodec();
  const codec = {
    ...plain,
    failures: 0,
    encode: (topic: string, value: object, json?: string) => {
      if (Date.now() < downUntil) {
        codec.failures += 1;
        return Promise.reject(
          new RegistryUnavailable('schema registry does not answer: connect ECONNREFUSED'),
        );
      }
      return plain.encode(topic, value, json);
    },
  };
  return codec;
}

it('waits out a registry outage of 70 s and completes the message', async () => {
  vi.useFakeTimers();
  const codec = codecDownUntil(Date.now() + 70_000);
  const state = new PartitionState(TOPIC, 0, 'lawsuits-summary');
  const completed = vi.fn();
  const worker = new Worker({
    topics,
    window: new TakeWindow({ partitionWindow: 10, replicaWindow: 10 }, () => [state]),
    partitions: { stateFor: () => Promise.resolve(state) },
    scheduler: new OperationSchedulers(1, (error) => {
      throw error;
    }),
    pauses: new PauseControl({ pause: () => undefined, resume: () => undefined }),
    breakerPauses: { admit: () => true },
    process: fakeProcessDeps(now),
    output: { codec, topics, source: '/test', resultMaxBytes: 1_000_000, now },
    logger: pino({ level: 'silent' }),
    onCompleted: completed,
    isStopping: () => false,
  });
  // An unreadable request: its outcome is a dead letter, framed through the codec.
  const message: KafkaMessage = {
    key: null,
    value: Buffer.from('not json'),
    timestamp: '0',
    attributes: 0,
    offset: '0',
    headers: {},
  };
  state.tracker.take('0');
  let failed: unknown;
  const work = worker.work(state, message).catch((error: unknown) => {
    failed = error;
  });
  await vi.advanceTimersByTimeAsync(90_000);
  await work;
  expect(failed).toBeUndefined();
  expect(codec.failures).toBeGreaterThan(6);
  expect(completed).toHaveBeenCalledTimes(1);
  expect(state.tracker.hasReadyPrefix()).toBe(true);
});

it('still gives up once the outage outlasts the budget', async () => {
  vi.useFakeTimers();
  const codec = codecDownUntil(Date.now() + 10 * INFRASTRUCTURE_RETRY.budgetMs);
  const state = new PartitionState(TOPIC, 0, 'lawsuits-summary');
  const worker = new Worker({
    topics,
    window: new TakeWindow({ partitionWindow: 10, replicaWindow: 10 }, () => [state]),
    partitions: { stateFor: () => Promise.resolve(state) },
    scheduler: new OperationSchedulers(1, () => undefined),
    pauses: new PauseControl({ pause: () => undefined, resume: () => undefined }),
    breakerPauses: { admit: () => true },
    process: fakeProcessDeps(now),
    output: { codec, topics, source: '/test', resultMaxBytes: 1_000_000, now },
    logger: pino({ level: 'silent' }),
    isStopping: () => false,
  });
  const message: KafkaMessage = {
    key: null,
    value: Buffer.from('not json'),
    timestamp: '0',
    attributes: 0,
    offset: '0',
    headers: {},
  };
  state.tracker.take('0');
  let failed: unknown;
  const work = worker.work(state, message).catch((error: unknown) => {
    failed = error;
  });
  await vi.advanceTimersByTimeAsync(INFRASTRUCTURE_RETRY.budgetMs + 30_000);
  await work;
  expect(failed).toBeInstanceOf(RegistryUnavailable);
});
