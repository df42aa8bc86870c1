/**
 * Issue 14, case 11: after a broker outage the transactional producer was stuck. Its failed
 * transaction's abort failed too, and every later transaction was refused ("Cannot call
 * beginTransaction in state ABORTING") until a restart. A failed transaction is now never ended
 * on its producer: the producer is replaced, and the new one's InitProducerId ends what the old
 * one left open. Today's client has a state of its own no call mends (a fatal error, an abort
 * that fails): the replacement mends it as well.
 */
import { KafkaJS } from '@confluentinc/kafka-javascript';
import { describe, expect, it } from 'vitest';
import { createTransactionalProducer } from '../../src/consumers/transactional-producer.js';
import { createKafka, type Consumer, type Kafka, type Producer } from '../../src/kafka/client.js';

const { ErrorCodes, KafkaJSError } = KafkaJS;

/**
 * A producer of the client whose transactions behave as the script says: while the broker is
 * down its produce fails, and from then on it is in a state no transaction can begin in (as
 * the client's is after a fatal error, and kafkajs's was after a failed abort).
 */
function fakeProducer(broken: boolean, log: string[]): Producer {
  let stuck = false;
  const transaction = {
    sendBatch: () => {
      if (!broken) return Promise.resolve([]);
      stuck = true;
      return Promise.reject(new KafkaJSError('broker down', { code: ErrorCodes.ERR__TRANSPORT }));
    },
    sendOffsets: ({ consumer }: { consumer: Consumer }) => {
      log.push(consumer === groupConsumer ? "offsets with the group's consumer" : 'offsets without it');
      return Promise.resolve();
    },
    commit: () => {
      log.push('committed');
      return Promise.resolve();
    },
    abort: () => {
      log.push('abort');
      return Promise.reject(
        new KafkaJSError('abort failed: broker down', { code: ErrorCodes.ERR__TRANSPORT }),
      );
    },
  };
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
      stuck
        ? Promise.reject(
            new KafkaJSError('Cannot begin a transaction: the producer is in a fatal state', {
              code: ErrorCodes.ERR__FATAL,
              fatal: true,
            }),
          )
        : Promise.resolve(transaction),
  } as unknown as Producer;
}

const groupConsumer = createKafka({ brokers: ['127.0.0.1:1'] }).consumer({ kafkaJS: { groupId: 'g' } });

describe('transaction state stuck after a broker outage (issue 14, case 11)', () => {
  it('a failed transaction replaces the producer, and the next commit succeeds', async () => {
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
    const group = { consumer: groupConsumer, owns: () => true };
    const record = { topic: 'out', key: Buffer.from('k'), value: Buffer.from('v'), headers: {} };
    await expect(producer.commit([record], offsets, group)).rejects.toThrow('broker down');
    await producer.commit([record], offsets, group);
    expect(created).toBe(2);
    // Never an abort on the failed producer: its successor's InitProducerId (connect) ends it.
    expect(log).toEqual([
      'connect',
      "offsets with the group's consumer",
      'disconnect',
      'connect',
      "offsets with the group's consumer",
      'committed',
    ]);
  });
});
