import { Kafka, logLevel, type EachBatchPayload, type KafkaMessage } from 'kafkajs';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { CircuitBreaker } from '../../../src/consumers/circuit-breaker.js';
import type { ProcessDeps } from '../../../src/consumers/process-request.js';
import { Runtime, type RuntimeConsumer } from '../../../src/consumers/runtime.js';
import { OPERATIONS, topicNames } from '../../../src/contract/operations.js';
import type { PartitionProducer } from '../../../src/consumers/commit-loop.js';
import { plainJsonCodec } from '../../../src/producers/value-codec.js';
import { fakeProcessDeps } from '../../helpers/fake-process-deps.js';

const topics = topicNames('t');
const TOPIC = topics.request('vehicle');
const now = () => new Date('2026-11-21T10:00:00.000Z');
const unreachable = (): never => {
  throw new Error('not expected in this test');
};

/** A consumer that never connects: its events come from an unconnected kafkajs consumer. */
function fakeConsumer(log: string[]) {
  const unconnected = new Kafka({ brokers: ['127.0.0.1:1'], logLevel: logLevel.NOTHING }).consumer({
    groupId: 'g',
  });
  const run: { eachBatch?: (payload: EachBatchPayload) => Promise<void> } = {};
  const consumer: RuntimeConsumer = {
    ...unconnected,
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
  return { consumer, run };
}

function payload(messages: KafkaMessage[]): EachBatchPayload {
  return {
    batch: {
      topic: TOPIC,
      partition: 1,
      highWatermark: '100',
      messages,
      isEmpty: () => messages.length === 0,
      firstOffset: () => messages[0]?.offset ?? null,
      lastOffset: () => messages.at(-1)?.offset ?? '-1',
      offsetLag: () => '0',
      offsetLagLow: () => '0',
    },
    resolveOffset: () => undefined,
    heartbeat: () => Promise.resolve(),
    pause: () => () => undefined,
    commitOffsetsIfNecessary: () => Promise.resolve(),
    uncommittedOffsets: () => ({ topics: [] }),
    isRunning: () => true,
    isStale: () => false,
  };
}

const processDeps = (): ProcessDeps => fakeProcessDeps(now);

describe('Runtime', () => {
  it('runs on the injected consumer and producers, and at stop commits what completed before closing', async () => {
    const log: string[] = [];
    const { consumer, run } = fakeConsumer(log);
    const producer = (id: string): PartitionProducer => ({
      fence: () => {
        log.push(`fence ${id}`);
        return Promise.resolve();
      },
      commit: (records, offset) => {
        log.push(`commit ${records.map((r) => r.topic).join(',')} next ${offset.offset}`);
        return Promise.resolve();
      },
      close: () => {
        log.push(`close ${id}`);
        return Promise.resolve();
      },
    });
    const runtime = new Runtime({
      kafka: new Kafka({ brokers: ['127.0.0.1:1'], logLevel: logLevel.NOTHING }),
      admin: { fetchOffsets: () => Promise.resolve([{ topic: TOPIC, partitions: [] }]) },
      topics,
      settings: {
        groupId: 'g',
        maxInFlight: 4,
        partitionWindow: 10,
        commitIntervalMs: 60_000,
        shutdownTimeoutMs: 1_000,
        sessionTimeoutMs: 6_000,
      },
      process: processDeps(),
      output: { codec: plainJsonCodec(), topics, source: '/test', resultMaxBytes: 1_000_000, now },
      breakerFor: () => new CircuitBreaker({ failureThreshold: 3, cooldownMs: 20 }),
      logger: pino({ level: 'silent' }),
      createConsumer: () => consumer,
      createProducer: producer,
      onFatal: unreachable,
    });

    await runtime.start();
    const empty = (offset: string): KafkaMessage => ({
      key: null,
      value: null,
      timestamp: '0',
      attributes: 0,
      offset,
      headers: {},
    });
    await run.eachBatch?.(payload([empty('0'), empty('1')]));
    // Taken, not yet committed: two of the window's ten.
    expect(runtime.stats().partitions).toEqual([{ topic: TOPIC, partition: 1, windowUsed: 0.2 }]);
    await runtime.stop();

    expect(log).toEqual([
      'connect',
      `subscribe ${OPERATIONS.length}`,
      `fence g.${TOPIC}.1`,
      `commit ${topics.errors},${topics.errors} next 2`,
      'disconnect',
      `close g.${TOPIC}.1`,
    ]);
  });
});
