/**
 * The consumer runtime driven by hand, for tests of its life cycle around the group: a consumer
 * that fetches, pauses and seeks as the client's does (a paused partition is not fetched; a
 * pending seek makes a batch stale; reading ahead of the committed offset is possible), a group
 * holding the committed offsets and calling the runtime's rebalance callback, and a producer
 * whose commits the test accepts or refuses. Requests are empty values: each is answered by one
 * dead letter, with no vendor call.
 */
import { KafkaJS } from '@confluentinc/kafka-javascript';
import { pino } from 'pino';
import {
  createKafka,
  type Consumer,
  type EachBatchPayload,
  type KafkaMessage,
} from '../../src/kafka/client.js';
import { CircuitBreaker } from '../../src/requests/circuit-breaker.js';
import type { PartitionOffset, TransactionalProducer } from '../../src/consumers/transactional-producer.js';
import { Runtime, type Rebalance } from '../../src/consumers/runtime.js';
import { topicNames, type Operation } from '../../src/contract/operations.js';
import { plainJsonCodec } from '../../src/producers/value-codec.js';
import { eachBatchPayload } from './batch-payload.js';
import { fakeProcessDeps } from './fake-process-deps.js';

export const topics = topicNames('h');
export const OPERATION: Operation = 'vehicle';
export const TOPIC = topics.request(OPERATION);
const now = () => new Date('2026-11-21T10:00:00.000Z');

/** A batch as the client hands it over: fetched from `fetchedOffset`, delivered maybe later. */
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
  /** Refuses it with the librdkafka error named (ERR_ILLEGAL_GENERATION...). */
  refuse(type: keyof typeof KafkaJS.ErrorCodes): void;
  /** Whether the runtime still held every partition of the round when it sent it. */
  owned: boolean;
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
  const paused = new Set<number>();
  const assigned = new Set<number>();
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
  let onRebalance: ((rebalance: Rebalance) => Promise<void>) | undefined;
  const kafka = createKafka({ brokers: ['127.0.0.1:1'] });
  const unconnected = kafka.consumer({ kafkaJS: { groupId: 'g' } });
  const consumer: Consumer = {
    ...unconnected,
    connect: () => Promise.resolve(),
    subscribe: () => Promise.resolve(),
    run: (config) => {
      run.eachBatch = config?.eachBatch;
      return Promise.resolve();
    },
    disconnect: () => Promise.resolve(),
    pause: (list) => {
      for (const { partitions = [] } of list) for (const partition of partitions) paused.add(partition);
    },
    resume: (list) => {
      for (const { partitions = [] } of list) for (const partition of partitions) paused.delete(partition);
    },
    seek: ({ partition, offset }) => {
      seeks.set(partition, Number(offset) === -2 ? 0 : Number(offset));
    },
  };
  const producer: TransactionalProducer = {
    connect: () => Promise.resolve(),
    close: () => Promise.resolve(),
    fence: () => Promise.resolve(),
    commit: (records, offsets, group) =>
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
            reject(Object.assign(new Error(type), { type, code: KafkaJS.ErrorCodes[type] }));
          },
          owned: group.owns(),
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
    kafka,
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
            leaderEpoch: null,
            error: null,
          }));
          return { topic, partitions };
        });
      },
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
    createConsumer: (_settings, rebalance) => {
      onRebalance = rebalance;
      return consumer;
    },
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
    /**
     * A rebalance that leaves this member `partitions` (cooperative: those it loses are revoked
     * first, then the new ones assigned); a newly assigned partition is read from its committed
     * offset, as the client does. `lost`: the revocation of a member whose session expired.
     */
    async join(partitions: number[], { lost = false } = {}): Promise<void> {
      const revoked = [...assigned].filter((p) => !partitions.includes(p));
      const added = partitions.filter((p) => !assigned.has(p));
      if (revoked.length > 0) {
        for (const partition of revoked) {
          assigned.delete(partition);
          paused.delete(partition);
        }
        await onRebalance?.({
          kind: 'revoke',
          partitions: revoked.map((partition) => ({ topic: TOPIC, partition })),
          lost,
        });
      }
      for (const partition of added) {
        assigned.add(partition);
        positions.set(partition, committed.get(partition) ?? 0);
      }
      if (added.length > 0)
        await onRebalance?.({
          kind: 'assign',
          partitions: added.map((partition) => ({ topic: TOPIC, partition })),
          lost: false,
        });
    },
    isPaused: (partition: number) => paused.has(partition),
    /** The next read of committed offsets answers after `ms` (a read the admin client retried). */
    slowNextRead(ms: number): void {
      readDelays.push(ms);
    },
    /** What a fetch of the partition returns now: none while it is paused. */
    fetch(partition: number): HeldBatch | undefined {
      if (paused.has(partition)) return undefined;
      const seek = seeks.get(partition);
      seeks.delete(partition);
      if (seek !== undefined) positions.set(partition, seek);
      const from = positions.get(partition) ?? 0;
      const messages: KafkaMessage[] = [];
      for (let offset = from; offset < (logs.get(partition) ?? 0); offset += 1)
        messages.push(request(offset));
      return { partition, fetchedOffset: String(from), messages };
    },
    /** Hands a fetched batch to the runtime; stale when a seek is pending, as in the client. */
    async deliver(held: HeldBatch): Promise<void> {
      const { partition, fetchedOffset, messages } = held;
      const batch = {
        topic: TOPIC,
        partition,
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
