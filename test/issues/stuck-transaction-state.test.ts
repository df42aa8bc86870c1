import type { Kafka, Producer, Transaction } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { createTransactionalProducer } from '../../src/consumers/transactional-producer.js';

/** A kafkajs producer whose transactions behave as the script says (broker outage, then recovery). */
function fakeProducer(broken: boolean, log: string[]): Producer {
  let aborting = false;
  const transaction = {
    addOffsets: () => Promise.resolve(),
    sendBatch: () => (broken ? Promise.reject(new Error('broker down')) : Promise.resolve([])),
    sendOffsets: (offsets: { consumerGroupMetadata?: { generationId: number } }) => {
      log.push(`offsets for generation ${offsets.consumerGroupMetadata?.generationId}`);
      return Promise.resolve();
    },
    commit: () => {
      log.push('committed');
      return Promise.resolve();
    },
    abort: () => {
      aborting = true;
      return Promise.reject(new Error('abort failed: broker down'));
    },
  } as unknown as Transaction;
  return {
    connect: () => {
      log.push('connect');
      return Promise.resolve();
    },
    disconnect: () => {
      log.push('disconnect');
      return Promise.resolve();
    },
    transaction: () =>
      aborting
        ? Promise.reject(new Error('Cannot call "beginTransaction" in state "ABORTING"'))
        : Promise.resolve(transaction),
  } as unknown as Producer;
}

describe('transaction state stuck after a broker outage (issue 14, case 11)', () => {
  it('a failed abort replaces the producer, and the next commit succeeds', async () => {
    const log: string[] = [];
    let created = 0;
    const kafka = {
      producer: () => fakeProducer(created++ === 0, log),
    } as unknown as Kafka;
    const producer = createTransactionalProducer(kafka, {
      transactionalId: 'group.host.1',
      transactionTimeoutMs: 10_000,
    });
    const offsets = [{ topic: 't', partition: 0, offset: '1' }];
    const member = { groupId: 'g', generationId: 3, memberId: 'm' };
    const record = { topic: 'out', key: Buffer.from('k'), value: Buffer.from('v'), headers: {} };
    await expect(producer.commit([record], offsets, member)).rejects.toThrow('broker down');
    await producer.commit([record], offsets, member);
    expect(created).toBe(2);
    expect(log).toEqual([
      'connect',
      'offsets for generation 3',
      'disconnect',
      'connect',
      'offsets for generation 3',
      'committed',
    ]);
  });
});
