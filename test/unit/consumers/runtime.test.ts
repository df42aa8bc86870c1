import { Kafka, logLevel, type EachBatchPayload, type KafkaMessage } from 'kafkajs';
import { pino } from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { CircuitBreaker } from '../../../src/requests/circuit-breaker.js';
import type { ProcessDeps } from '../../../src/requests/process-request.js';
import { Runtime, type RuntimeConsumer } from '../../../src/consumers/runtime.js';
import { OPERATIONS, topicNames } from '../../../src/contract/operations.js';
import type { TransactionalProducer } from '../../../src/consumers/transactional-producer.js';
import { plainJsonCodec } from '../../../src/producers/value-codec.js';
import { eachBatchPayload } from '../../helpers/batch-payload.js';
import { fakeProcessDeps } from '../../helpers/fake-process-deps.js';

const topics = topicNames('t');
const TOPIC = topics.request('vehicle');
const now = () => new Date('2026-11-21T10:00:00.000Z');
const unreachable = (): never => {
  throw new Error('not expected in this test');
};

interface JoinPayload {
  groupId: string;
  memberId: string;
  generationId: number;
  memberAssignment: Record<string, number[]>;
}

/**
 * A consumer that never connects: its event names come from an unconnected kafkajs consumer;
 * `join` plays the group's GROUP_JOIN event.
 */
function fakeConsumer(log: string[], { betweenRuns = false } = {}) {
  const unconnected = new Kafka({ brokers: ['127.0.0.1:1'], logLevel: logLevel.NOTHING }).consumer({
    groupId: 'g',
  });
  const run: { eachBatch?: (payload: EachBatchPayload) => Promise<void> } = {};
  const listeners = new Map<string, (event: { payload: JoinPayload }) => void>();
  const seeks: string[] = [];
  const consumer: RuntimeConsumer = {
    ...unconnected,
    on: ((event: string, listener: (event: { payload: JoinPayload }) => void) => {
      listeners.set(event, listener);
      return () => undefined;
    }) as RuntimeConsumer['on'],
    seek: ({ topic, partition, offset }) => {
      // Between runs (after a crash, before kafkajs restarts it), kafkajs's own seek answers.
      if (betweenRuns) unconnected.seek({ topic, partition, offset });
      seeks.push(`${partition}@${offset}`);
    },
    connect: () => {
      log.push('connect');
      return Promise.resolve();
    },
    subscribe: (subscription) => {
      log.push(`subscribe ${'topics' in subscription ? subscription.topics.length : 1}`);
      return Promise.resolve();
    },
    run: (config) => {
      run.eachBatch = config?.eachBatch;
      return Promise.resolve();
    },
    disconnect: () => {
      log.push('disconnect');
      return Promise.resolve();
    },
    pause: () => undefined,
    resume: () => undefined,
  };
  const join = (generationId: number, memberId: string, partitions: number[]) => {
    listeners.get(unconnected.events.GROUP_JOIN)?.({
      payload: { groupId: 'g', memberId, generationId, memberAssignment: { [TOPIC]: partitions } },
    });
  };
  return { consumer, run, join, seeks };
}

/** A batch fetched from `fetchedOffset` (kafkajs's Batch carries it; its types leave it out). */
function payload(messages: KafkaMessage[], partition = 1, fetchedOffset = '0'): EachBatchPayload {
  const batch = {
    fetchedOffset,
    topic: TOPIC,
    partition,
    highWatermark: '100',
    messages,
    isEmpty: () => messages.length === 0,
    firstOffset: () => messages[0]?.offset ?? null,
    lastOffset: () => messages.at(-1)?.offset ?? '-1',
    offsetLag: () => '0',
    offsetLagLow: () => '0',
  };
  return eachBatchPayload(batch);
}

const processDeps = (): ProcessDeps => fakeProcessDeps(now);

const empty = (offset: string): KafkaMessage => ({
  key: null,
  value: null,
  timestamp: '0',
  attributes: 0,
  offset,
  headers: {},
});

/** The process's one producer, logging what it is asked; `refuse` fails its next commit so. */
function fakeProducer(log: string[]) {
  const refusals: Error[] = [];
  const producer: TransactionalProducer = {
    connect: () => {
      log.push('producer connect');
      return Promise.resolve();
    },
    commit: (records, offsets, member) => {
      const refusal = refusals.shift();
      if (refusal) return Promise.reject(refusal);
      const next = offsets.map((o) => `${o.partition}@${o.offset}`).join(' ');
      log.push(`commit ${records.length} records, next ${next}, generation ${member.generationId}`);
      return Promise.resolve();
    },
    close: () => {
      log.push('producer close');
      return Promise.resolve();
    },
  };
  return { producer, refuse: (type: string) => refusals.push(Object.assign(new Error(type), { type })) };
}

function setup(log: string[], consumerOptions: { betweenRuns?: boolean } = {}) {
  const { consumer, run, join, seeks } = fakeConsumer(log, consumerOptions);
  const { producer, refuse } = fakeProducer(log);
  const runtime = new Runtime({
    kafka: new Kafka({ brokers: ['127.0.0.1:1'], logLevel: logLevel.NOTHING }),
    admin: {
      fetchOffsets: () => Promise.resolve([{ topic: TOPIC, partitions: [] }]),
      fetchTopicOffsets: () =>
        Promise.resolve([1, 2].map((partition) => ({ partition, offset: '9', high: '9', low: '0' }))),
    },
    topics,
    settings: {
      groupId: 'g',
      maxInFlight: 4,
      partitionWindow: 10,
      replicaWindow: 1_000,
      commitIntervalMs: 60_000,
      maxCommitIntervalMs: 60_000,
      shutdownTimeoutMs: 1_000,
      sessionTimeoutMs: 6_000,
      transactionalId: 'g.host.1',
      transactionTimeoutMs: 10_000,
    },
    process: processDeps(),
    output: { codec: plainJsonCodec(), topics, source: '/test', resultMaxBytes: 1_000_000, now },
    breakerFor: () => new CircuitBreaker({ failureThreshold: 3, cooldownMs: 20 }),
    logger: pino({ level: 'silent' }),
    createConsumer: () => consumer,
    producer,
    onFatal: unreachable,
  });
  return { runtime, run, join, seeks, refuse };
}

const heldPartitions = (runtime: Runtime) => runtime.stats().partitions.map((p) => p.partition);

/** A partition taken under generation 1 whose commit the group refuses; then a stop. */
async function refusedRound(consumerOptions: { betweenRuns?: boolean } = {}) {
  const log: string[] = [];
  const { runtime, run, join, seeks, refuse } = setup(log, consumerOptions);
  await runtime.start();
  join(1, 'member-a', [1]);
  refuse('ILLEGAL_GENERATION');
  await run.eachBatch?.(payload([empty('0')], 1));
  await runtime.stop();
  return { runtime, log, seeks };
}

describe('Runtime', () => {
  it('commits every partition through one producer, for the joined generation, and at stop commits what completed before closing', async () => {
    const log: string[] = [];
    const { runtime, run, join } = setup(log);

    await runtime.start();
    join(1, 'member-a', [0, 1, 2]);
    await run.eachBatch?.(payload([empty('0'), empty('1')], 1));
    await run.eachBatch?.(payload([empty('5')], 2));
    // Taken, not yet committed: two of partition 1's window of ten.
    expect(runtime.stats().partitions).toEqual([
      { topic: TOPIC, partition: 1, windowUsed: 0.2 },
      { topic: TOPIC, partition: 2, windowUsed: 0.1 },
    ]);
    await runtime.stop();

    expect(log).toEqual([
      'producer connect',
      'connect',
      `subscribe ${OPERATIONS.length * 2}`, // both lanes of every operation
      'commit 3 records, next 1@2 2@6, generation 1',
      'disconnect',
      'producer close',
    ]);
  });

  it('keeps its partitions through a rebalance to the next generation, and reads everything again after missing one', async () => {
    const { runtime, run, join } = setup([]);
    await runtime.start();
    join(4, 'member-a', [1, 2]);
    await run.eachBatch?.(payload([empty('0')], 1));
    await run.eachBatch?.(payload([empty('0')], 2));

    join(5, 'member-a', [1]);
    expect(heldPartitions(runtime)).toEqual([1]);

    // Generation 6 passed without us: another member may have held partition 1 meanwhile.
    join(7, 'member-a', [1]);
    expect(heldPartitions(runtime)).toEqual([]);

    await run.eachBatch?.(payload([empty('0')], 1));
    // Our session expired and we came back as a new member.
    join(8, 'member-b', [1]);
    expect(heldPartitions(runtime)).toEqual([]);
    await runtime.stop();
  });

  it('reads the partitions of a refused commit again from their committed offsets', async () => {
    const { runtime, log, seeks } = await refusedRound();
    expect(log.filter((line) => line.startsWith('commit'))).toEqual([]);
    expect(heldPartitions(runtime)).toEqual([]);
    // Nothing committed yet: read again from the earliest offset.
    await vi.waitFor(() => {
      expect(seeks).toEqual(['1@-2']);
    });
  });

  it('lets a refused commit go without a seek while the consumer is between runs', async () => {
    // The refused round ends (onFatal would throw, an escaped error would fail the test run);
    // the restarted consumer reads the partition from the group's committed offset.
    const { runtime, log, seeks } = await refusedRound({ betweenRuns: true });
    expect(log.filter((line) => line.startsWith('commit'))).toEqual([]);
    expect(heldPartitions(runtime)).toEqual([]);
    expect(seeks).toEqual([]);
    expect(log.at(-1)).toBe('producer close');
  });
});
