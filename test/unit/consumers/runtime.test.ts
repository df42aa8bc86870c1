import { KafkaJS } from '@confluentinc/kafka-javascript';
import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CircuitBreaker } from '../../../src/requests/circuit-breaker.js';
import type { ProcessDeps } from '../../../src/requests/process-request.js';
import { HANGING_TRANSACTION_MARGIN_MS } from '../../../src/consumers/partitions.js';
import {
  REVOKE_SETTLE_MS,
  Runtime,
  type Rebalance,
  type RuntimeDeps,
} from '../../../src/consumers/runtime.js';
import { OPERATIONS, topicNames } from '../../../src/contract/operations.js';
import {
  RevokedBeforeCommit,
  type TransactionalProducer,
} from '../../../src/consumers/transactional-producer.js';
import { plainJsonCodec } from '../../../src/producers/value-codec.js';
import {
  createKafka,
  type Consumer,
  type EachBatchPayload,
  type KafkaMessage,
} from '../../../src/kafka/client.js';
import { eachBatchPayload } from '../../helpers/batch-payload.js';
import { fakeProcessDeps } from '../../helpers/fake-process-deps.js';

const { ErrorCodes, KafkaJSError } = KafkaJS;

afterEach(() => {
  vi.useRealTimers();
});

const topics = topicNames('t');
const TOPIC = topics.request('vehicle');
const now = () => new Date('2026-11-21T10:00:00.000Z');
const unreachable = (): never => {
  throw new Error('not expected in this test');
};

/**
 * A consumer that never connects, made from an unconnected consumer of the client; `rebalance`
 * plays the client's rebalance callback, as the runtime handed it to `createConsumer`.
 * `notConnected`: its seek answers as the client's does while it is not connected.
 */
function fakeConsumer(log: string[], { notConnected = false } = {}) {
  const unconnected = createKafka({ brokers: ['127.0.0.1:1'] }).consumer({ kafkaJS: { groupId: 'g' } });
  const run: { eachBatch?: (payload: EachBatchPayload) => Promise<void> } = {};
  const seeks: string[] = [];
  const consumer: Consumer = {
    ...unconnected,
    seek: ({ topic, partition, offset }) => {
      if (notConnected) unconnected.seek({ topic, partition, offset });
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
  return { consumer, run, seeks };
}

/** A batch of the partition, as the client hands it to eachBatch. */
function payload(messages: KafkaMessage[], partition = 1): EachBatchPayload {
  const batch = {
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

/** A commit kept from going on until released. */
interface Hold {
  stage: 'begin' | 'end';
  released: Promise<void>;
}

/**
 * The process's one producer, logging what it is asked. As the real one, it asks the group
 * whether the round's partitions are still held right before the offsets go (RevokedBeforeCommit
 * when not); `refuse` fails its next commit with the client's error of that code; `hold` keeps
 * the next commit under way until released.
 */
function fakeProducer(log: string[], consumer: Consumer) {
  const refusals: Error[] = [];
  const holds: Hold[] = [];
  const producer: TransactionalProducer = {
    connect: () => {
      log.push('producer connect');
      return Promise.resolve();
    },
    commit: async (records, offsets, group) => {
      const next = offsets.map((o) => `${o.partition}@${o.offset}`).join(' ');
      const hold = holds.shift();
      if (hold?.stage === 'begin') {
        log.push(`commit under way, next ${next}`);
        await hold.released;
      }
      const refusal = refusals.shift();
      if (refusal) throw refusal;
      if (!group.owns()) {
        log.push(`revoked before commit, next ${next}`);
        throw new RevokedBeforeCommit();
      }
      if (hold?.stage === 'end') {
        log.push(`offsets sent, next ${next}`);
        await hold.released;
      }
      const through = group.consumer === consumer ? "the group's consumer" : 'another consumer';
      log.push(`commit ${records.length} records, next ${next}, through ${through}`);
    },
    fence: () => {
      log.push('fence');
      return Promise.resolve();
    },
    close: () => {
      log.push('producer close');
      return Promise.resolve();
    },
  };
  return {
    producer,
    refuse: (code: number) => refusals.push(new KafkaJSError('offsets refused', { code })),
    /**
     * Holds the next commit, as its transaction begins ('begin': before its offsets go) or
     * commits ('end': after); the function returned lets it go on.
     */
    hold: (stage: Hold['stage'] = 'begin'): (() => void) => {
      let release: () => void = () => undefined;
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      holds.push({ stage, released });
      return release;
    },
  };
}

function setup(
  log: string[],
  consumerOptions: { notConnected?: boolean } = {},
  admin: RuntimeDeps['admin'] = { fetchOffsets: () => Promise.resolve([{ topic: TOPIC, partitions: [] }]) },
) {
  const { consumer, run, seeks } = fakeConsumer(log, consumerOptions);
  const { producer, refuse, hold } = fakeProducer(log, consumer);
  let onRebalance: ((rebalance: Rebalance) => Promise<void>) | undefined;
  const runtime = new Runtime({
    kafka: createKafka({ brokers: ['127.0.0.1:1'] }),
    admin,
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
    createConsumer: (_settings, rebalance) => {
      onRebalance = rebalance;
      return consumer;
    },
    producer,
    onFatal: unreachable,
  });
  /** The client's rebalance callback, awaited as the client awaits it. */
  const rebalance = (kind: Rebalance['kind'], partitions: number[], lost = false): Promise<void> => {
    if (!onRebalance) throw new Error('no rebalance callback was handed to the consumer');
    return onRebalance({
      kind,
      partitions: partitions.map((partition) => ({ topic: TOPIC, partition })),
      lost,
    });
  };
  return { runtime, run, rebalance, seeks, refuse, hold };
}

const heldPartitions = (runtime: Runtime) => runtime.stats().partitions.map((p) => p.partition);

/** Whether `promise` has settled, after letting pending callbacks run. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(
    () => (done = true),
    () => (done = true),
  );
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

/** A partition taken after its assignment whose commit the group refuses; then a stop. */
async function refusedRound(consumerOptions: { notConnected?: boolean } = {}) {
  const log: string[] = [];
  const { runtime, run, rebalance, seeks, refuse } = setup(log, consumerOptions);
  await runtime.start();
  await rebalance('assign', [1]);
  refuse(ErrorCodes.ERR_ILLEGAL_GENERATION);
  await run.eachBatch?.(payload([empty('0')], 1));
  await runtime.stop();
  return { runtime, log, seeks };
}

describe('Runtime', () => {
  it("commits every partition through one producer, with its consumer's group, and at stop commits what completed before closing", async () => {
    const log: string[] = [];
    const { runtime, run, rebalance } = setup(log);

    await runtime.start();
    await rebalance('assign', [0, 1, 2]);
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
      "commit 3 records, next 1@2 2@6, through the group's consumer",
      'disconnect',
      'producer close',
    ]);
  });

  it('commits nothing before its first assignment', async () => {
    const log: string[] = [];
    const { runtime, run, rebalance } = setup(log);
    await runtime.start();
    await run.eachBatch?.(payload([empty('0')], 1));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(log.filter((line) => line.startsWith('commit'))).toEqual([]);

    await rebalance('assign', [1]);
    await run.eachBatch?.(payload([empty('1')], 1));
    await vi.waitFor(() => {
      expect(log.filter((line) => line.startsWith('commit'))).toEqual([
        "commit 2 records, next 1@2, through the group's consumer",
      ]);
    });
    await runtime.stop();
  });

  it('keeps the partitions a cooperative rebalance leaves it, and drops those revoked or lost', async () => {
    const { runtime, run, rebalance } = setup([]);
    await runtime.start();
    await rebalance('assign', [1, 2]);
    await run.eachBatch?.(payload([empty('0')], 1));
    await run.eachBatch?.(payload([empty('0')], 2));

    // Another member joins: partition 2 is revoked, partition 1 stays (no callback for it).
    await rebalance('revoke', [2]);
    expect(heldPartitions(runtime)).toEqual([1]);
    await rebalance('assign', [3]);
    expect(heldPartitions(runtime)).toEqual([1]);

    // Our session expired: another member may hold partition 1 already.
    await rebalance('revoke', [1, 3], true);
    expect(heldPartitions(runtime)).toEqual([]);

    // Given back: read again from what is committed.
    await rebalance('assign', [1]);
    await run.eachBatch?.(payload([empty('0')], 1));
    expect(heldPartitions(runtime)).toEqual([1]);
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

  it('lets a refused commit go without a seek while the consumer is not connected', async () => {
    // The refused round ends (onFatal would throw, an escaped error would fail the test run);
    // a consumer connected again reads the partition from the group's committed offset.
    const { runtime, log, seeks } = await refusedRound({ notConnected: true });
    expect(log.filter((line) => line.startsWith('commit'))).toEqual([]);
    expect(heldPartitions(runtime)).toEqual([]);
    expect(seeks).toEqual([]);
    expect(log.at(-1)).toBe('producer close');
  });

  describe('a revocation while a commit round is under way', () => {
    /** Partitions 1 and 2 assigned, a request taken on each, and their round held in the producer. */
    async function heldRound() {
      const log: string[] = [];
      const parts = setup(log);
      const { runtime, run, rebalance, hold } = parts;
      await runtime.start();
      await rebalance('assign', [1, 2]);
      const release = hold();
      await run.eachBatch?.(payload([empty('0')], 1));
      await run.eachBatch?.(payload([empty('0')], 2));
      await vi.waitFor(() => {
        expect(log).toContain('commit under way, next 1@1 2@1');
      });
      return { ...parts, log, release };
    }

    it('resolves only once the round has ended, which commits nothing for the partitions revoked', async () => {
      const { runtime, rebalance, release, log } = await heldRound();

      const revoking = rebalance('revoke', [2]);
      // The partition's work is dropped at once; the callback (and the rebalance) waits.
      expect(heldPartitions(runtime)).toEqual([1]);
      expect(await settled(revoking)).toBe(false);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(await settled(revoking)).toBe(false);

      release();
      await revoking;
      // The round asked right before its offsets went: partition 2 was no longer ours, so the
      // round (one transaction) sent nothing, and its partitions are read again.
      expect(log.slice(log.indexOf('commit under way, next 1@1 2@1'))).toEqual([
        'commit under way, next 1@1 2@1',
        'revoked before commit, next 1@1 2@1',
      ]);
      expect(log).not.toContain('fence');
      await runtime.stop();
    });

    it('waits for a round that had sent its offsets before the revocation, which commits them', async () => {
      const log: string[] = [];
      const { runtime, run, rebalance, hold } = setup(log);
      await runtime.start();
      await rebalance('assign', [1, 2]);
      const release = hold('end');
      await run.eachBatch?.(payload([empty('0')], 1));
      await run.eachBatch?.(payload([empty('0')], 2));
      await vi.waitFor(() => {
        expect(log).toContain('offsets sent, next 1@1 2@1');
      });

      // Sent under the generation that held both partitions: the revocation lets partition 2
      // go only once the transaction has ended.
      const revoking = rebalance('revoke', [2]);
      expect(await settled(revoking)).toBe(false);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(await settled(revoking)).toBe(false);
      release();
      await revoking;
      expect(log.filter((line) => line.startsWith('commit '))).toEqual([
        "commit 2 records, next 1@1 2@1, through the group's consumer",
      ]);
      expect(log).not.toContain('fence');
      expect(heldPartitions(runtime)).toEqual([1]);
      await runtime.stop();
    });

    it('fences the producer when the round outlives the settle timeout, and then lets the partitions go', async () => {
      const { runtime, rebalance, release, log } = await heldRound();
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });

      const revoking = rebalance('revoke', [2]);
      await vi.advanceTimersByTimeAsync(REVOKE_SETTLE_MS - 1);
      expect(await settled(revoking)).toBe(false);
      expect(log).not.toContain('fence');

      await vi.advanceTimersByTimeAsync(1);
      await revoking;
      // Its producer is replaced: the next InitProducerId (the next round's) bumps the epoch,
      // which fences whatever the hung round still has in flight.
      expect(log.filter((line) => line === 'fence')).toHaveLength(1);
      expect(heldPartitions(runtime)).toEqual([1]);

      vi.useRealTimers();
      release();
      await runtime.stop();
      expect(log.filter((line) => line.startsWith('commit ') && !line.includes('under way'))).toEqual([]);
    });
  });

  it("reports a partition assigned while an earlier owner's transaction holds its offsets, which the client never hands over", async () => {
    vi.useFakeTimers();
    // Every read of the partition's committed offset finds the transaction still open.
    const held: RuntimeDeps['admin'] = {
      fetchOffsets: () =>
        Promise.reject(new KafkaJSError('unstable offsets', { code: ErrorCodes.ERR_UNSTABLE_OFFSET_COMMIT })),
    };
    const { runtime, rebalance } = setup([], {}, held);
    await runtime.start();
    await rebalance('assign', [1]);
    // The client reads the committed offset with require_stable too, and fetches nothing of the
    // partition while the transaction holds it: no batch comes. Past the transaction timeout
    // (10 s) and the margin, the partition is reported (gauge, warning, console).
    await vi.advanceTimersByTimeAsync(10_000 + HANGING_TRANSACTION_MARGIN_MS + 5_000);
    expect(runtime.stats().hanging).toEqual([
      { topic: TOPIC, partition: 1, heldMs: expect.any(Number) as number },
    ]);
    vi.useRealTimers();
    await runtime.stop();
  });
});
