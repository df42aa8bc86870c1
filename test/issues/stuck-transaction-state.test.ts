import type { Kafka, Producer, Transaction } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { createPartitionProducer } from '../../src/consumers/commit-loop.js';

/** A kafkajs producer whose transactions behave as the script says (broker outage, then recovery). */
function fakeProducer(broken: boolean, log: string[]): Producer {
  let aborting = false;
  const transaction = {
    sendBatch: () => (broken ? Promise.reject(new Error('broker down')) : Promise.resolve([])),
    sendOffsets: () => Promise.resolve(),
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
    const producer = createPartitionProducer(kafka, 'group.topic.0');
    const offset = { groupId: 'g', topic: 't', partition: 0, offset: '1' };
    const record = { topic: 'out', key: Buffer.from('k'), value: Buffer.from('v'), headers: {} };
    await expect(producer.commit([record], offset)).rejects.toThrow('broker down');
    await producer.commit([record], offset);
    expect(created).toBe(2);
    expect(log).toEqual(['connect', 'disconnect', 'connect', 'committed']);
  });
});
