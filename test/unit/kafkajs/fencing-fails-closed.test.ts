/**
 * kafkajs patch 002 fails closed on zombie fencing (KIP-447): a TxnOffsetCommit that carries no
 * consumer group generation and member id, or one to a broker that cannot check them (no v3),
 * is never sent; it fails with KafkaJSFencingUnsupported, which the commit loop treats as fatal
 * (src/consumers/transactional-producer.ts, isUnrecoverable). Before, kafkajs picked the highest version
 * both sides knew and sent the offsets unfenced.
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { isUnrecoverable } from '../../../src/consumers/transactional-producer.js';

const require = createRequire(import.meta.url);

interface Broker {
  versions: Record<number, { minVersion: number; maxVersion: number }> | null;
  lookupRequest: unknown;
  txnOffsetCommit(args: Record<string, unknown>): Promise<unknown>;
}
type BrokerClass = new (args: Record<string, unknown>) => Broker;
const Broker = require('kafkajs/src/broker') as BrokerClass;
const { lookup } = require('kafkajs/src/protocol/requests') as {
  lookup: (versions: Record<number, { minVersion: number; maxVersion: number }>) => unknown;
};

const TXN_OFFSET_COMMIT = 28;

/** A broker object that records what it would send, as if connected with these versions. */
function brokerSpeaking(txnOffsetCommitMax: number) {
  const sent: { apiKey: number; apiVersion: number }[] = [];
  const logger = { namespace: () => logger, debug: () => undefined, info: () => undefined };
  const broker = new Broker({
    connectionPool: {
      connectionTimeout: 1_000,
      host: '127.0.0.1',
      port: 9,
      send: ({ request }: { request: { apiKey: number; apiVersion: number } }) => {
        sent.push({ apiKey: request.apiKey, apiVersion: request.apiVersion });
        return Promise.resolve({});
      },
    },
    logger,
  });
  broker.versions = { [TXN_OFFSET_COMMIT]: { minVersion: 0, maxVersion: txnOffsetCommitMax } };
  broker.lookupRequest = lookup(broker.versions);
  return { broker, sent };
}

const commit = {
  transactionalId: 'tx',
  groupId: 'g',
  producerId: 5,
  producerEpoch: 1,
  topics: [{ topic: 't', partitions: [{ partition: 0, offset: '7' }] }],
};

describe('TxnOffsetCommit fails closed without zombie fencing', () => {
  it('sends v3 with the member generation when the broker speaks it', async () => {
    const { broker, sent } = brokerSpeaking(3);
    await broker.txnOffsetCommit({ ...commit, generationId: 4, memberId: 'member-1' });
    expect(sent).toEqual([{ apiKey: TXN_OFFSET_COMMIT, apiVersion: 3 }]);
  });

  it('refuses, sending nothing, when the offsets carry no generation or member id', async () => {
    const { broker, sent } = brokerSpeaking(3);
    for (const metadata of [
      {},
      { generationId: 4 },
      { memberId: 'member-1' },
      { generationId: -1, memberId: '' },
    ]) {
      const error = await broker.txnOffsetCommit({ ...commit, ...metadata }).catch((e: unknown) => e);
      expect((error as Error).name).toBe('KafkaJSFencingUnsupported');
      expect(isUnrecoverable(error)).toBe(true);
    }
    expect(sent).toEqual([]);
  });

  it('refuses, sending nothing, when the broker answers TxnOffsetCommit only below v3', async () => {
    const { broker, sent } = brokerSpeaking(2);
    const error = await broker
      .txnOffsetCommit({ ...commit, generationId: 4, memberId: 'member-1' })
      .catch((e: unknown) => e);
    expect((error as Error).name).toBe('KafkaJSFencingUnsupported');
    expect((error as Error).message).toContain('up to v2');
    expect(sent).toEqual([]);
  });
});
