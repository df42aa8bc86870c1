import { KafkaJS } from '@confluentinc/kafka-javascript';
import { describe, expect, it, vi } from 'vitest';
import {
  createTransactionalProducer,
  errorCode,
  isProducerFenced,
  isRefusedMember,
  RevokedBeforeCommit,
  TransactionCallHung,
  TRANSACTIONAL_PRODUCER_SETTINGS,
  type GroupHandle,
} from '../../../src/consumers/transactional-producer.js';
import {
  createKafka,
  type Consumer,
  type Kafka,
  type Producer,
  type ProducerConstructorConfig,
  type TopicMessages,
} from '../../../src/kafka/client.js';
import type { OutputRecord } from '../../../src/producers/output-records.js';

const { ErrorCodes, KafkaJSError } = KafkaJS;

/** The offsets one sendOffsets carried. */
interface SentOffsets {
  consumer: Consumer;
  topics: { topic: string; partitions: { partition: number; offset: string }[] }[];
}

/**
 * A client whose producers log each step and let the test decide when a produce answers; in
 * the client a transaction is its producer. `offsetsFail`: sendOffsets fails (the group
 * coordinator refused the offsets).
 */
function scriptedClient(
  options: {
    offsetsFail?: boolean;
    offsetsErrors?: number[];
    commitErrors?: number[];
    /** sendOffsets never settles (librdkafka#5456). */
    offsetsHang?: boolean;
    /** The first producer's connect answers only when the test says (releaseConnect). */
    connectHangs?: boolean;
    /** These producers' connects fail (InitProducerId refused). */
    connectFails?: number[];
  } = {},
) {
  const offsetsErrors = [...(options.offsetsErrors ?? [])];
  const commitErrors = [...(options.commitErrors ?? [])];
  const log: string[] = [];
  const batches: TopicMessages[][] = [];
  const offsets: SentOffsets[] = [];
  const configs: (ProducerConstructorConfig | undefined)[] = [];
  let answerProduce: () => void = () => undefined;
  const produced = new Promise<void>((resolve) => {
    answerProduce = resolve;
  });
  let releaseConnect: () => void = () => undefined;
  const connectReleased = new Promise<void>((resolve) => {
    releaseConnect = resolve;
  });
  const producer = (config?: ProducerConstructorConfig): Producer => {
    configs.push(config);
    const id = configs.length;
    const transaction = {
      sendBatch: async ({ topicMessages }: { topicMessages?: TopicMessages[] }) => {
        log.push('produce sent');
        batches.push(topicMessages ?? []);
        await produced;
        log.push('produce answered');
        return [];
      },
      sendOffsets: (sent: SentOffsets) => {
        log.push('offsets sent');
        offsets.push(sent);
        if (options.offsetsHang) return new Promise<void>(() => undefined);
        const scripted = offsetsErrors.shift();
        if (scripted !== undefined)
          return Promise.reject(new KafkaJSError('offsets not sent', { code: scripted }));
        return options.offsetsFail
          ? Promise.reject(new KafkaJSError('offsets refused', { code: ErrorCodes.ERR_ILLEGAL_GENERATION }))
          : Promise.resolve();
      },
      commit: () => {
        log.push('commit');
        const scripted = commitErrors.shift();
        return scripted === undefined
          ? Promise.resolve()
          : Promise.reject(new KafkaJSError('commit not done', { code: scripted }));
      },
      abort: () => {
        log.push('abort');
        return Promise.resolve();
      },
    };
    return {
      ...transaction,
      connect: () => {
        log.push(`producer ${id} connect`);
        if (options.connectHangs && id === 1)
          return connectReleased.then(() => {
            log.push(`producer ${id} connected late`);
          });
        if (options.connectFails?.includes(id))
          return Promise.reject(
            new KafkaJSError('init refused', { code: ErrorCodes.ERR_COORDINATOR_NOT_AVAILABLE }),
          );
        return Promise.resolve();
      },
      disconnect: () => {
        log.push(`producer ${id} disconnect`);
        return Promise.resolve();
      },
      transaction: () => {
        log.push('transaction');
        return Promise.resolve(transaction);
      },
    } as unknown as Producer;
  };
  const kafka = { producer } as unknown as Kafka;
  return {
    kafka,
    log,
    batches,
    offsets,
    configs,
    answerProduce: () => {
      answerProduce();
    },
    releaseConnect: () => {
      releaseConnect();
    },
  };
}

const consumer = createKafka({ brokers: ['127.0.0.1:1'] }).consumer({ kafkaJS: { groupId: 'g' } });
/** The group's consumer, all of whose partitions are still held. */
const owning: GroupHandle = { consumer, owns: () => true };
const offsets = [
  { topic: 'requests', partition: 0, offset: '8' },
  { topic: 'requests', partition: 2, offset: '3' },
];
const record = (bytes: number, topic = 'results'): OutputRecord => ({
  topic,
  key: Buffer.from('k'),
  value: Buffer.alloc(bytes, 'x'),
  headers: { 'content-type': 'application/json' },
});

function producerOn(kafka: Kafka, resumes: string[] = [], callHangMs?: number) {
  return createTransactionalProducer(kafka, {
    transactionalId: 'tx',
    transactionTimeoutMs: 10_000,
    ...(callHangMs === undefined ? {} : { callHangMs, initHangMs: callHangMs }),
    onResume: (call, error) => {
      resumes.push(`${call}: ${errorCode(error)}`);
    },
  });
}

/** Lets pending callbacks run. */
const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('the transactional producer', () => {
  it("sends the offsets with the group's consumer while the outputs are still being produced, and commits after both", async () => {
    const { kafka, log, batches, offsets: sent, answerProduce } = scriptedClient();
    const committing = producerOn(kafka).commit(
      [record(10), record(20, 'errors'), record(30)],
      offsets,
      owning,
    );
    await tick();
    expect(log).toEqual(['producer 1 connect', 'transaction', 'produce sent', 'offsets sent']);
    answerProduce();
    await committing;
    expect(log.slice(4)).toEqual(['produce answered', 'commit']);
    // One batch for every topic: the client splits and compresses it.
    expect(batches).toHaveLength(1);
    expect(batches[0]?.map((t) => [t.topic, t.messages.map((m) => (m.value as Buffer).length)])).toEqual([
      ['results', [10, 30]],
      ['errors', [20]],
    ]);
    // The consumer itself: the client reads its group metadata (generation, member id) from it.
    expect(sent).toEqual([
      {
        consumer,
        topics: [
          {
            topic: 'requests',
            partitions: [
              { partition: 0, offset: '8' },
              { partition: 2, offset: '3' },
            ],
          },
        ],
      },
    ]);
  });

  it('commits offsets alone when a round has no outputs', async () => {
    const { kafka, log } = scriptedClient();
    await producerOn(kafka).commit([], offsets, owning);
    expect(log).toEqual(['producer 1 connect', 'transaction', 'offsets sent', 'commit']);
  });

  it('ends a failed transaction with a new producer, never EndTxn, once the produce has answered too', async () => {
    const { kafka, log, configs, answerProduce } = scriptedClient({ offsetsFail: true });
    const committing = producerOn(kafka).commit([record(100)], offsets, owning);
    const failed = expect(committing).rejects.toThrow('offsets refused');
    await tick();
    expect(configs).toHaveLength(1);
    answerProduce();
    await failed;
    // A delayed EndTxn or TxnOffsetCommit of the failed transaction must not land in the next
    // one (EndTxn v1 keeps the epoch across an abort): the next producer's InitProducerId bumps
    // the epoch, which ends the old transaction and fences its requests.
    expect(log).toEqual([
      'producer 1 connect',
      'transaction',
      'produce sent',
      'offsets sent',
      'produce answered',
      'producer 1 disconnect',
      // At once, not at the next round: the new epoch ends the failed transaction now.
      'producer 2 connect',
    ]);
    expect(configs).toHaveLength(2);
  });

  it('connects its new producer after a failed transaction without waiting for a next round, again until one connects', async () => {
    const { kafka, log, configs, answerProduce } = scriptedClient({ offsetsFail: true, connectFails: [2] });
    answerProduce();
    const producer = producerOn(kafka);
    await expect(producer.commit([record(100)], offsets, owning)).rejects.toThrow('offsets refused');
    // The broker keeps the failed transaction (and the last stable offset of what it wrote) open
    // until a new epoch ends it: a replica left without work has no next round to bring one.
    // Producer 2's InitProducerId failed: producer 3 tries, with no call from the caller.
    await vi.waitFor(
      () => {
        expect(log).toContain('producer 3 connect');
      },
      { timeout: 5_000 },
    );
    expect(log.slice(log.indexOf('producer 1 disconnect'))).toEqual([
      'producer 1 disconnect',
      'producer 2 connect',
      'producer 2 disconnect',
      'producer 3 connect',
    ]);
    expect(configs).toHaveLength(3);
    await producer.close();
    expect(log.at(-1)).toBe('producer 3 disconnect');
  });

  it('stops connecting after a failed transaction once it is closed', async () => {
    const { kafka, log, answerProduce } = scriptedClient({ offsetsFail: true, connectFails: [2, 3, 4] });
    answerProduce();
    const producer = producerOn(kafka);
    await expect(producer.commit([record(100)], offsets, owning)).rejects.toThrow('offsets refused');
    await producer.close();
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(log.filter((l) => l.endsWith(' connect'))).toEqual(['producer 1 connect', 'producer 2 connect']);
  });

  it('sends no offsets and commits nothing once the round has lost a partition: RevokedBeforeCommit', async () => {
    const { kafka, log, offsets: sent, configs, answerProduce } = scriptedClient();
    let held = true;
    const asked: string[] = [];
    const group: GroupHandle = {
      consumer,
      owns: () => {
        asked.push(log.at(-1) ?? 'nothing yet');
        return held;
      },
    };
    const producer = producerOn(kafka);
    // Still held when the round starts; the rebalance callback revokes a partition while the
    // transaction begins.
    const committing = producer.commit([record(100)], offsets, group);
    held = false;
    const failed = committing.then(
      () => undefined,
      (error: unknown) => error,
    );
    await tick();
    answerProduce();
    const error = await failed;

    expect(error).toBeInstanceOf(RevokedBeforeCommit);
    // The commit loop reads the round's partitions again, as after a refusal by the group.
    expect(isRefusedMember(error)).toBe(true);
    // Asked right before the offsets would go, after the transaction began: not earlier.
    expect(asked).toEqual(['produce sent']);
    expect(sent).toEqual([]);
    expect(log).not.toContain('commit');
    expect(log).not.toContain('abort');
    // The outputs already sent are aborted with the epoch a new producer brings, at once.
    expect(log.slice(-3)).toEqual(['produce answered', 'producer 1 disconnect', 'producer 2 connect']);
    expect(configs).toHaveLength(2);

    await producer.commit([record(100)], offsets, owning);
    expect(log.slice(-5)).toEqual([
      'transaction',
      'produce sent',
      'offsets sent',
      'produce answered',
      'commit',
    ]);
  });

  it('fences what is under way by replacing its producer, whose new epoch begins at once', async () => {
    const { kafka, log, configs, answerProduce } = scriptedClient();
    answerProduce();
    const producer = producerOn(kafka);
    await producer.commit([record(100)], offsets, owning);
    await producer.fence();
    // The old producer goes, and the new one's InitProducerId (connect) ends its transaction now.
    expect(log.slice(-2)).toEqual(['producer 1 disconnect', 'producer 2 connect']);
    expect(configs).toHaveLength(2);

    await producer.commit([record(100)], offsets, owning);
    expect(log.slice(-6)).toEqual([
      'producer 2 connect',
      'transaction',
      'produce sent',
      'offsets sent',
      'produce answered',
      'commit',
    ]);
    await producer.close();
    expect(log.at(-1)).toBe('producer 2 disconnect');
  });

  it("goes on with the same transaction after a call's own timeout or a coordinator's move", async () => {
    const { kafka, log, configs, answerProduce } = scriptedClient({
      offsetsErrors: [ErrorCodes.ERR_COORDINATOR_NOT_AVAILABLE, ErrorCodes.ERR__TRANSPORT],
      commitErrors: [ErrorCodes.ERR__TIMED_OUT],
    });
    answerProduce();
    const resumes: string[] = [];
    await producerOn(kafka, resumes).commit([record(100)], offsets, owning);
    // No new producer: the transaction is not redone, only its calls made again.
    expect(configs).toHaveLength(1);
    expect(log.filter((l) => l === 'offsets sent')).toHaveLength(3);
    expect(log.filter((l) => l === 'commit')).toHaveLength(2);
    expect(log).not.toContain('producer 1 disconnect');
    expect(resumes).toEqual([
      `sendOffsets: ${ErrorCodes.ERR_COORDINATOR_NOT_AVAILABLE}`,
      `sendOffsets: ${ErrorCodes.ERR__TRANSPORT}`,
      `commit: ${ErrorCodes.ERR__TIMED_OUT}`,
    ]);
  });

  it('asks again whether the round still holds its partitions before it sends the offsets again', async () => {
    const {
      kafka,
      offsets: sent,
      configs,
      answerProduce,
    } = scriptedClient({
      offsetsErrors: [ErrorCodes.ERR_NOT_COORDINATOR],
    });
    answerProduce();
    let asked = 0;
    // Held at the first call; revoked while the coordinator moved.
    const group: GroupHandle = { consumer, owns: () => (asked += 1) === 1 };
    await expect(producerOn(kafka).commit([record(100)], offsets, group)).rejects.toBeInstanceOf(
      RevokedBeforeCommit,
    );
    expect(sent).toHaveLength(1);
    expect(asked).toBe(2);
    expect(configs).toHaveLength(2);
  });

  it('gives up a sendOffsets that never returns (librdkafka#5456) and leaves the transaction to a new producer', async () => {
    const { kafka, log, configs, answerProduce } = scriptedClient({ offsetsHang: true });
    answerProduce();
    const resumes: string[] = [];
    const error = await producerOn(kafka, resumes, 50)
      .commit([record(100)], offsets, owning)
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(TransactionCallHung);
    expect(resumes).toEqual([]);
    expect(log).not.toContain('commit');
    expect(log).toContain('producer 1 disconnect');
    expect(configs).toHaveLength(2);
  });

  it('closes a producer whose InitProducerId it gave up on only once that connect ends', async () => {
    const { kafka, log, configs, answerProduce, releaseConnect } = scriptedClient({ connectHangs: true });
    answerProduce();
    const producer = producerOn(kafka, [], 50);
    await expect(producer.commit([record(100)], offsets, owning)).rejects.toBeInstanceOf(TransactionCallHung);
    expect(configs).toHaveLength(2);
    // Disconnecting it now would make the client throw when its ready event comes.
    expect(log).not.toContain('producer 1 disconnect');
    await producer.commit([record(100)], offsets, owning);
    expect(log).toContain('producer 2 connect');
    releaseConnect();
    await tick();
    await tick();
    expect(log.slice(-2)).toEqual(['producer 1 connected late', 'producer 1 disconnect']);
  });

  it('redoes nothing in the same transaction after an error that ends it: a new producer', async () => {
    const { kafka, log, configs, answerProduce } = scriptedClient({
      commitErrors: [ErrorCodes.ERR__MSG_TIMED_OUT],
    });
    answerProduce();
    const resumes: string[] = [];
    await expect(producerOn(kafka, resumes).commit([record(100)], offsets, owning)).rejects.toThrow(
      'commit not done',
    );
    expect(log.filter((l) => l === 'commit')).toHaveLength(1);
    expect(resumes).toEqual([]);
    expect(configs).toHaveLength(2);
  });

  it('makes its producers transactional and idempotent, with gzip at level 1 and values up to 4 MiB', async () => {
    const { kafka, configs, answerProduce } = scriptedClient();
    answerProduce();
    const producer = producerOn(kafka);
    await producer.fence();
    expect(configs).toHaveLength(2);
    for (const config of configs) {
      expect(config).toMatchObject({
        kafkaJS: { transactionalId: 'tx', idempotent: true, transactionTimeout: 10_000, acks: -1 },
        'compression.codec': 'gzip',
        'compression.level': 1,
        'message.max.bytes': 4 * 1024 * 1024,
      });
    }
    expect(TRANSACTIONAL_PRODUCER_SETTINGS['compression.codec']).toBe('gzip');
    // The client takes these settings as they are (it throws at a key at the wrong level).
    const real = createKafka({ brokers: ['127.0.0.1:1'] });
    expect(() => real.producer(configs[0])).not.toThrow();
  });
});

describe("the client's errors", () => {
  const error = (code: number) => new KafkaJSError('refused', { code });

  it("tell a group's refusal of a member's offsets", () => {
    for (const code of [
      ErrorCodes.ERR_ILLEGAL_GENERATION,
      ErrorCodes.ERR_UNKNOWN_MEMBER_ID,
      ErrorCodes.ERR_FENCED_INSTANCE_ID,
      ErrorCodes.ERR_REBALANCE_IN_PROGRESS,
    ])
      expect(isRefusedMember(error(code))).toBe(true);
    expect(isRefusedMember(new RevokedBeforeCommit())).toBe(true);
    for (const code of [
      ErrorCodes.ERR_PRODUCER_FENCED,
      ErrorCodes.ERR__TIMED_OUT,
      ErrorCodes.ERR_NOT_COORDINATOR,
    ])
      expect(isRefusedMember(error(code))).toBe(false);
    expect(isRefusedMember(new Error('ILLEGAL_GENERATION'))).toBe(false);
  });

  it('tell a fenced producer', () => {
    for (const code of [
      ErrorCodes.ERR_INVALID_PRODUCER_EPOCH,
      ErrorCodes.ERR_PRODUCER_FENCED,
      ErrorCodes.ERR__FENCED,
    ])
      expect(isProducerFenced(error(code))).toBe(true);
    expect(isProducerFenced(error(ErrorCodes.ERR_ILLEGAL_GENERATION))).toBe(false);
  });

  it('are read also under a cause', () => {
    const wrapped = new Error('commit failed', { cause: error(ErrorCodes.ERR_UNKNOWN_MEMBER_ID) });
    expect(errorCode(wrapped)).toBe(ErrorCodes.ERR_UNKNOWN_MEMBER_ID);
    expect(isRefusedMember(wrapped)).toBe(true);
    expect(errorCode(new Error('plain'))).toBeUndefined();
  });
});
