/**
 * The patched kafkajs transaction manager (patches/kafkajs+2.2.4.patch) asks the coordinator
 * again, within milliseconds, while it answers CONCURRENT_TRANSACTIONS (the previous
 * transaction's markers are still being written), instead of failing the send into the
 * producer's retrier, which waited 300 ms before sending the whole batch again.
 * The coordinator here is a stand-in answering as a broker does.
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);

interface EosManager {
  initProducerId(): Promise<void>;
  beginTransaction(): void;
  addPartitionsToTransaction(
    topicData: { topic: string; partitions: { partition: number }[] }[],
  ): Promise<void>;
  sendOffsets(args: {
    consumerGroupId: string;
    topics: { topic: string; partitions: { partition: number; offset: string }[] }[];
  }): Promise<void>;
}
type CreateEosManager = (args: Record<string, unknown>) => EosManager;
const createEosManager = require('kafkajs/src/producer/eosManager') as CreateEosManager;
const { KafkaJSProtocolError } = require('kafkajs/src/errors') as {
  KafkaJSProtocolError: new (e: { type: string; code: number; retriable: boolean; message: string }) => Error;
};

const concurrentTransactions = (): Error =>
  new KafkaJSProtocolError({
    type: 'CONCURRENT_TRANSACTIONS',
    code: 51,
    retriable: true,
    message: 'The producer attempted to update a transaction while another concurrent operation was ongoing',
  });

/** A coordinator answering CONCURRENT_TRANSACTIONS to the first `busyAnswers` requests of each kind. */
function coordinator(busyAnswers: number) {
  const calls = { addPartitionsToTxn: 0, addOffsetsToTxn: 0, txnOffsetCommit: 0 };
  const busy = async (kind: 'addPartitionsToTxn' | 'addOffsetsToTxn'): Promise<void> => {
    calls[kind] += 1;
    await Promise.resolve();
    if (calls[kind] <= busyAnswers) throw concurrentTransactions();
  };
  const broker = {
    initProducerId: () => Promise.resolve({ producerId: 7, producerEpoch: 0 }),
    addPartitionsToTxn: () => busy('addPartitionsToTxn'),
    addOffsetsToTxn: () => busy('addOffsetsToTxn'),
    txnOffsetCommit: () => {
      calls.txnOffsetCommit += 1;
      return Promise.resolve();
    },
  };
  const cluster = {
    retry: { retries: 0 },
    refreshMetadataIfNecessary: () => Promise.resolve(),
    findGroupCoordinator: () => Promise.resolve(broker),
  };
  return { calls, cluster };
}

const silent = { debug() {}, info() {}, warn() {}, error() {} };

async function transacting(cluster: unknown, transactionTimeout = 10_000): Promise<EosManager> {
  const eos = createEosManager({
    logger: silent,
    cluster,
    transactional: true,
    transactionalId: 'tx-1',
    transactionTimeout,
  });
  await eos.initProducerId();
  eos.beginTransaction();
  return eos;
}

describe('kafkajs transactions while the previous one completes', () => {
  it('adds partitions once the coordinator stops answering CONCURRENT_TRANSACTIONS', async () => {
    const { calls, cluster } = coordinator(3);
    const eos = await transacting(cluster);
    await eos.addPartitionsToTransaction([{ topic: 'results', partitions: [{ partition: 0 }] }]);
    expect(calls.addPartitionsToTxn).toBe(4);
  });

  it('adds the offsets once the coordinator stops answering CONCURRENT_TRANSACTIONS', async () => {
    const { calls, cluster } = coordinator(2);
    const eos = await transacting(cluster);
    await eos.sendOffsets({
      consumerGroupId: 'group',
      topics: [{ topic: 'requests', partitions: [{ partition: 0, offset: '5' }] }],
    });
    expect(calls.addOffsetsToTxn).toBe(3);
    expect(calls.txnOffsetCommit).toBe(1);
  });

  it('gives up with the broker error after the transaction timeout', async () => {
    const { calls, cluster } = coordinator(Number.POSITIVE_INFINITY);
    const eos = await transacting(cluster, 50);
    await expect(
      eos.addPartitionsToTransaction([{ topic: 'results', partitions: [{ partition: 0 }] }]),
    ).rejects.toMatchObject({ type: 'CONCURRENT_TRANSACTIONS' });
    expect(calls.addPartitionsToTxn).toBeGreaterThan(1);
  });

  it('passes other errors through at once', async () => {
    const { cluster } = coordinator(0);
    const eos = await transacting(cluster);
    const failing = {
      ...cluster,
      findGroupCoordinator: () =>
        Promise.resolve({
          addPartitionsToTxn: () => Promise.reject(new Error('connection closed')),
        }),
    };
    Object.assign(cluster, failing);
    await expect(
      eos.addPartitionsToTransaction([{ topic: 'results', partitions: [{ partition: 0 }] }]),
    ).rejects.toThrow('connection closed');
  });
});
