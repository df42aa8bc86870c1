import { CompressionTypes, type Kafka, type Producer, type ProducerBatch, type Transaction } from 'kafkajs';
import { describe, expect, it, vi } from 'vitest';
import {
  BEGIN_AFTER_COMMIT_MS,
  COMPRESS_FROM_BYTES,
  createTransactionalProducer,
} from '../../../src/consumers/transactional-producer.js';
import type { OutputRecord } from '../../../src/producers/output-records.js';

/** A kafkajs transaction that logs each step and lets the test decide when a produce answers. */
function scriptedTransaction(options: { offsetsFail?: boolean } = {}) {
  const log: string[] = [];
  const batches: ProducerBatch[] = [];
  let answerProduce: () => void = () => undefined;
  const produced = new Promise<void>((resolve) => {
    answerProduce = resolve;
  });
  const transaction = {
    addOffsets: () => {
      log.push('add offsets');
      return Promise.resolve();
    },
    sendBatch: async (batch: ProducerBatch) => {
      log.push('produce sent');
      batches.push(batch);
      await produced;
      log.push('produce answered');
      return [];
    },
    sendOffsets: () => {
      log.push('offsets sent');
      return options.offsetsFail ? Promise.reject(new Error('offsets refused')) : Promise.resolve();
    },
    commit: () => {
      log.push('commit');
      return Promise.resolve();
    },
    abort: () => {
      log.push('abort');
      return Promise.resolve();
    },
  } as unknown as Transaction;
  const producer = {
    connect: () => Promise.resolve(),
    disconnect: () => Promise.resolve(),
    transaction: () => Promise.resolve(transaction),
  } as unknown as Producer;
  const kafka = { producer: () => producer } as unknown as Kafka;
  return {
    kafka,
    log,
    batches,
    answerProduce: () => {
      answerProduce();
    },
  };
}

const member = { groupId: 'g', generationId: 4, memberId: 'm' };
const offsets = [{ topic: 'requests', partition: 0, offset: '8' }];
const record = (bytes: number): OutputRecord => ({
  topic: 'results',
  key: Buffer.from('k'),
  value: Buffer.alloc(bytes, 'x'),
  headers: {},
});

function producerOn(kafka: Kafka) {
  return createTransactionalProducer(kafka, { transactionalId: 'tx', transactionTimeoutMs: 10_000 });
}

/**
 * On fake timers: a producer whose produces answer at once, after its first commit.
 */
async function afterOneCommit(
  body: (producer: ReturnType<typeof producerOn>, log: string[]) => Promise<void>,
): Promise<void> {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  try {
    const { kafka, log, answerProduce } = scriptedTransaction();
    answerProduce();
    const producer = producerOn(kafka);
    await producer.commit([record(100)], offsets, member);
    await body(producer, log);
  } finally {
    vi.useRealTimers();
  }
}

describe('the transactional producer', () => {
  it('sends the offsets while the outputs are still being produced, and commits after both', async () => {
    const { kafka, log, answerProduce } = scriptedTransaction();
    const committing = producerOn(kafka).commit([record(100)], offsets, member);
    await new Promise((resolve) => setImmediate(resolve));
    expect(log).toEqual(['add offsets', 'produce sent', 'offsets sent']);
    answerProduce();
    await committing;
    expect(log).toEqual(['add offsets', 'produce sent', 'offsets sent', 'produce answered', 'commit']);
  });

  it('ends a failed transaction with a new producer, never EndTxn, once the produce has answered too', async () => {
    const { kafka, log, answerProduce } = scriptedTransaction({ offsetsFail: true });
    let created = 0;
    const counting = {
      producer: (...args: Parameters<Kafka['producer']>) => {
        created += 1;
        return kafka.producer(...args);
      },
    } as unknown as Kafka;
    const committing = producerOn(counting).commit([record(100)], offsets, member);
    const failed = expect(committing).rejects.toThrow('offsets refused');
    await new Promise((resolve) => setImmediate(resolve));
    expect(created).toBe(1);
    answerProduce();
    await failed;
    // A delayed EndTxn or TxnOffsetCommit of the failed transaction must not land in the next
    // one (transaction.version 1 keeps the epoch across an abort): the next producer's
    // InitProducerId bumps the epoch, which ends the old transaction and fences its requests.
    expect(log).toEqual(['add offsets', 'produce sent', 'offsets sent', 'produce answered']);
    expect(created).toBe(2);
  });

  it('compresses large outputs and leaves a few small ones as they are', async () => {
    const small = scriptedTransaction();
    small.answerProduce();
    await producerOn(small.kafka).commit([record(500), record(500)], offsets, member);
    expect(small.batches.map((b) => b.compression)).toEqual([CompressionTypes.None]);

    const large = scriptedTransaction();
    large.answerProduce();
    await producerOn(large.kafka).commit([record(COMPRESS_FROM_BYTES)], offsets, member);
    expect(large.batches.map((b) => b.compression)).toEqual([CompressionTypes.GZIP]);
  });
  it('begins the next transaction, with its AddOffsetsToTxn, shortly after one commits', () =>
    afterOneCommit(async (producer, log) => {
      const committed = ['add offsets', 'produce sent', 'offsets sent', 'produce answered', 'commit'];
      // Not at once: the coordinator is still writing the markers of the one just committed.
      await vi.advanceTimersByTimeAsync(BEGIN_AFTER_COMMIT_MS - 1);
      expect(log).toEqual(committed);
      await vi.advanceTimersByTimeAsync(1);
      expect(log).toEqual([...committed, 'add offsets']);
      log.length = 0;
      // The next round waits for no AddOffsetsToTxn of its own.
      await producer.commit([record(100)], offsets, member);
      expect(log.slice(0, 4)).toEqual(['produce sent', 'offsets sent', 'produce answered', 'commit']);
      await producer.close();
    }));

  it('lets a round that comes before the next transaction began wait for it, and begins nothing once closed', () =>
    afterOneCommit(async (producer, log) => {
      log.length = 0;
      // At once after the commit: this round takes the transaction about to begin.
      const round = producer.commit([record(100)], offsets, member);
      await vi.advanceTimersByTimeAsync(0);
      expect(log).toEqual([]);
      await vi.advanceTimersByTimeAsync(BEGIN_AFTER_COMMIT_MS);
      await round;
      expect(log).toEqual(['add offsets', 'produce sent', 'offsets sent', 'produce answered', 'commit']);
      log.length = 0;
      // Closed before the next one began: it never begins, so there is nothing to abort.
      await producer.close();
      await vi.advanceTimersByTimeAsync(BEGIN_AFTER_COMMIT_MS);
      expect(log).toEqual([]);
    }));

  it('aborts a next transaction left unused for a quarter of the timeout, and on close', () =>
    afterOneCommit(async (producer, log) => {
      await vi.advanceTimersByTimeAsync(2_400);
      expect(log).not.toContain('abort');
      await vi.advanceTimersByTimeAsync(100);
      expect(log.at(-1)).toBe('abort');
      log.length = 0;
      // Nothing was ready: this round begins its own transaction.
      await producer.commit([record(100)], offsets, member);
      expect(log.slice(0, 2)).toEqual(['add offsets', 'produce sent']);
      await vi.advanceTimersByTimeAsync(BEGIN_AFTER_COMMIT_MS);
      expect(log.at(-1)).toBe('add offsets');
      await producer.close();
      expect(log.at(-1)).toBe('abort');
    }));
});
