/**
 * The consumer runtime driven by hand, for tests of its life cycle around the group: a consumer
 * that fetches, pauses and seeks as kafkajs does (its own SubscriptionState decides what is
 * paused; a pending seek makes a batch stale; reading ahead of the committed offset is
 * possible), a group holding the committed offsets, and a producer whose commits the test
 * accepts or refuses. Requests are empty values: each is answered by one dead letter, with no
 * vendor call.
 */
import { createRequire } from 'node:module';
import { Kafka, logLevel, type EachBatchPayload, type KafkaMessage } from 'kafkajs';
import { pino } from 'pino';
import { CircuitBreaker } from '../../src/requests/circuit-breaker.js';
import type { PartitionOffset, TransactionalProducer } from '../../src/consumers/transactional-producer.js';
import { Runtime, type RuntimeConsumer } from '../../src/consumers/runtime.js';
import { topicNames, type Operation } from '../../src/contract/operations.js';
import { plainJsonCodec } from '../../src/producers/value-codec.js';
import { eachBatchPayload } from './batch-payload.js';
import { fakeProcessDeps } from './fake-process-deps.js';

interface SubscriptionState {
  assign(topicPartitions: { topic: string; partitions: number[] }[]): void;
  pause(topicPartitions: { topic: string; partitions: number[] }[]): void;
  resume(topicPartitions: { topic: string; partitions: number[] }[]): void;
  isPaused(topic: string, partition: number): boolean;
}
const require = createRequire(import.meta.url);
const KafkajsSubscriptionState =
  require('kafkajs/src/consumer/subscriptionState') as new () => SubscriptionState;

export const topics = topicNames('h');
export const OPERATION: Operation = 'vehicle';
export const TOPIC = topics.request(OPERATION);
const now = () => new Date('2026-11-21T10:00:00.000Z');

/** A batch as kafkajs hands it over: fetched from `fetchedOffset`, delivered maybe later. */
export interface HeldBatch {
  partition: number;
  fetchedOffset: string;
  messages: KafkaMessage[];
}

/** A commit the runtime sent, waiting for the test to accept or refuse it. */
export interface PendingCommit {
  offsets: readonly PartitionOffset[];
  records: number;
  accept(): void;
  refuse(type: string): void;
}

const request = (offset: number): KafkaMessage => ({
  key: null,
  value: null,
  timestamp: '0',
  attributes: 0,
  offset: String(offset),
  headers: {},
});

export function runtimeHarness(settings: { partitionWindow?: number } = {}) {
  const subscription = new KafkajsSubscriptionState();
  const logs = new Map<number, number>();
  const positions = new Map<number, number>();
  const seeks = new Map<number, number>();
  const committed = new Map<number, number>();
  const pending: PendingCommit[] = [];
  /** Delays (ms) of the next reads of committed offsets; a retried read answers late. */
  const readDelays: number[] = [];
  /** Outcomes (records) that went out in accepted commits. */
  let answered = 0;
  const run: { eachBatch?: (payload: EachBatchPayload) => Promise<void> } = {};
  let onJoin: ((event: { payload: unknown }) => void) | undefined;
  const unconnected = new Kafka({ brokers: ['127.0.0.1:1'], logLevel: logLevel.NOTHING }).consumer({
    groupId: 'g',
  });
  const consumer: RuntimeConsumer = {
    ...unconnected,
    on: ((event: string, listener: (event: { payload: unknown }) => void) => {
      if (event === unconnected.events.GROUP_JOIN) onJoin = listener;
      return () => undefined;
    }) as RuntimeConsumer['on'],
    connect: () => Promise.resolve(),
    subscribe: () => Promise.resolve(),
    run: (config) => {
      run.eachBatch = config?.eachBatch;
      return Promise.resolve();
    },
    disconnect: () => Promise.resolve(),
    pause: (list) => {
      subscription.pause(list.map((t) => ({ topic: t.topic, partitions: t.partitions ?? [] })));
    },
    resume: (list) => {
      subscription.resume(list.map((t) => ({ topic: t.topic, partitions: t.partitions ?? [] })));
    },
    seek: ({ partition, offset }) => {
      seeks.set(partition, Number(offset) === -2 ? 0 : Number(offset));
    },
  };
  const producer: TransactionalProducer = {
    connect: () => Promise.resolve(),
    close: () => Promise.resolve(),
    commit: (records, offsets) =>
      new Promise<void>((resolve, reject) => {
        pending.push({
          offsets,
          records: records.length,
          accept: () => {
            for (const { partition, offset } of offsets) committed.set(partition, Number(offset));
            answered += records.length;
            resolve();
          },
          refuse: (type) => {
            reject(Object.assign(new Error(type), { type }));
          },
        });
      }),
  };
  const breakers = new Map<Operation, CircuitBreaker>();
  const breakerFor = (operation: Operation): CircuitBreaker => {
    let breaker = breakers.get(operation);
    if (!breaker) {
      breaker = new CircuitBreaker({ failureThreshold: 3, cooldownMs: 600_000 });
      breakers.set(operation, breaker);
    }
    return breaker;
  };
  const committedOf = (partition: number): string => String(committed.get(partition) ?? -1);
  const runtime = new Runtime({
    kafka: new Kafka({ brokers: ['127.0.0.1:1'], logLevel: logLevel.NOTHING }),
    admin: {
      fetchOffsets: async ({ topics: asked }) => {
        const delay = readDelays.shift();
        if (delay !== undefined) await new Promise((resolve) => setTimeout(resolve, delay));
        return (asked ?? []).map((t) => {
          const topic = typeof t === 'string' ? t : t.topic;
          const partitions = [...logs.keys()].map((partition) => ({
            partition,
            offset: committedOf(partition),
            metadata: null,
          }));
          return { topic, partitions };
        });
      },
      fetchTopicOffsets: () =>
        Promise.resolve(
          [...logs].map(([partition, size]) => ({
            partition,
            offset: String(size),
            high: String(size),
            low: '0',
          })),
        ),
    },
    topics,
    settings: {
      groupId: 'g',
      maxInFlight: 16,
      partitionWindow: settings.partitionWindow ?? 100,
      replicaWindow: 1_000,
      commitIntervalMs: 0,
      maxCommitIntervalMs: 0,
      shutdownTimeoutMs: 1_000,
      sessionTimeoutMs: 6_000,
      transactionalId: 'g.harness',
      transactionTimeoutMs: 10_000,
    },
    process: fakeProcessDeps(now),
    output: { codec: plainJsonCodec(), topics, source: '/test', resultMaxBytes: 1_000_000, now },
    breakerFor,
    logger: pino({ level: 'silent' }),
    createConsumer: () => consumer,
    producer,
    onFatal: (error) => {
      throw error;
    },
  });

  return {
    runtime,
    breakerFor,
    /** Requests answered in accepted commits. */
    answered: () => answered,
    committedOffset: (partition: number) => committed.get(partition),
    /** Appends `count` requests to a partition's log. */
    publish(partition: number, count: number): void {
      logs.set(partition, (logs.get(partition) ?? 0) + count);
    },
    /** The group's join of a generation; the consumer reads on from the committed offsets, as kafkajs does. */
    join(generationId: number, partitions: number[]): void {
      subscription.assign([{ topic: TOPIC, partitions }]);
      for (const partition of partitions) positions.set(partition, committed.get(partition) ?? 0);
      onJoin?.({
        payload: {
          groupId: 'g',
          memberId: 'member-a',
          generationId,
          memberAssignment: { [TOPIC]: partitions },
        },
      });
    },
    isPaused: (partition: number) => subscription.isPaused(TOPIC, partition),
    /** The next read of committed offsets answers after `ms` (a read the admin client retried). */
    slowNextRead(ms: number): void {
      readDelays.push(ms);
    },
    /** What a fetch of the partition returns now: none while it is paused. */
    fetch(partition: number): HeldBatch | undefined {
      if (subscription.isPaused(TOPIC, partition)) return undefined;
      const seek = seeks.get(partition);
      seeks.delete(partition);
      if (seek !== undefined) positions.set(partition, seek);
      const from = positions.get(partition) ?? 0;
      const messages: KafkaMessage[] = [];
      for (let offset = from; offset < (logs.get(partition) ?? 0); offset += 1)
        messages.push(request(offset));
      return { partition, fetchedOffset: String(from), messages };
    },
    /** Hands a fetched batch to the runtime; stale when a seek is pending, as in kafkajs. */
    async deliver(held: HeldBatch): Promise<void> {
      const { partition, fetchedOffset, messages } = held;
      const batch = {
        topic: TOPIC,
        partition,
        fetchedOffset,
        highWatermark: String(logs.get(partition) ?? 0),
        messages,
        isEmpty: () => messages.length === 0,
        firstOffset: () => messages[0]?.offset ?? null,
        lastOffset: () => messages.at(-1)?.offset ?? fetchedOffset,
        offsetLag: () => '0',
        offsetLagLow: () => '0',
      };
      await run.eachBatch?.(
        eachBatchPayload(batch, {
          resolveOffset: (offset) => positions.set(partition, Number(offset) + 1),
          isStale: () => seeks.has(partition),
        }),
      );
    },
    /** The runtime's next commit, once it is sent. */
    async nextCommit(): Promise<PendingCommit> {
      for (let waited = 0; waited < 5_000; waited += 5) {
        const commit = pending.shift();
        if (commit) return commit;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      throw new Error('no commit was sent');
    },
    /** Whether a commit is waiting, after letting the runtime run for a moment. */
    async hasCommit(): Promise<boolean> {
      await new Promise((resolve) => setTimeout(resolve, 50));
      return pending.length > 0;
    },
  };
}
