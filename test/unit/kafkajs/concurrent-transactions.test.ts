/**
 * The patched kafkajs transaction manager (patches 005-008 in patches/):
 * - asks the coordinator again, within milliseconds, while it answers CONCURRENT_TRANSACTIONS
 *   (the previous transaction's markers are still being written), instead of failing the send
 *   into the producer's retrier, which waited 300 ms before sending the whole batch again;
 * - finds each coordinator once, and again only after an answer saying it moved, instead of
 *   a FindCoordinator round trip before every transactional request;
 * - can tell the coordinator of a group's offsets ahead (AddOffsetsToTxn), so that sending
 *   them (TxnOffsetCommit) can go alongside the transaction's produce requests.
 * The coordinator here is a stand-in answering as a broker does.
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);

interface EosManager {
  initProducerId(): Promise<void>;
  beginTransaction(): void;
  commit(): Promise<void>;
  addOffsetsToTransaction(consumerGroupId: string): Promise<void>;
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

const protocolError = (type: string, code: number): Error =>
  new KafkaJSProtocolError({ type, code, retriable: true, message: type });

const concurrentTransactions = (): Error =>
  new KafkaJSProtocolError({
    type: 'CONCURRENT_TRANSACTIONS',
    code: 51,
    retriable: true,
    message: 'The producer attempted to update a transaction while another concurrent operation was ongoing',
  });

/** A coordinator answering CONCURRENT_TRANSACTIONS to the first `busyAnswers` requests of each kind. */
function coordinator(busyAnswers: number) {
  const calls = {
    addPartitionsToTxn: 0,
    addOffsetsToTxn: 0,
    txnOffsetCommit: 0,
    endTxn: 0,
    findCoordinator: 0,
  };
  const answers: Error[] = [];
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
      const answer = answers.shift();
      return answer ? Promise.reject(answer) : Promise.resolve();
    },
    endTxn: () => {
      calls.endTxn += 1;
      return Promise.resolve();
    },
  };
  const cluster = {
    retry: { retries: 1, initialRetryTime: 1 },
    refreshMetadataIfNecessary: () => Promise.resolve(),
    findGroupCoordinator: () => {
      calls.findCoordinator += 1;
      return Promise.resolve(broker);
    },
  };
  /** The next TxnOffsetCommit fails with this error. */
  const failNextOffsetCommit = (error: Error): void => {
    answers.push(error);
  };
  return { calls, cluster, failNextOffsetCommit };
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

  it('finds the transaction and group coordinators once for many transactions', async () => {
    const { calls, cluster } = coordinator(0);
    const eos = await transacting(cluster);
    const found = calls.findCoordinator;
    for (let round = 0; round < 3; round += 1) {
      if (round > 0) eos.beginTransaction();
      await oneTransaction(eos);
    }
    expect(calls.endTxn).toBe(3);
    expect(calls.findCoordinator - found).toBe(2);
  });

  it('finds the group coordinator again after it answers that it moved', async () => {
    const { calls, cluster, failNextOffsetCommit } = coordinator(0);
    const eos = await transacting(cluster);
    await oneTransaction(eos);
    const found = calls.findCoordinator;
    failNextOffsetCommit(protocolError('NOT_COORDINATOR_FOR_GROUP', 16));
    eos.beginTransaction();
    await oneTransaction(eos);
    expect(calls.txnOffsetCommit).toBe(3);
    expect(calls.findCoordinator - found).toBe(1);
  });
});

describe("kafkajs transactions told of a group's offsets ahead", () => {
  const offsets = {
    consumerGroupId: 'group',
    topics: [{ topic: 'requests', partitions: [{ partition: 0, offset: '5' }] }],
  };

  it('sends the offsets with no second AddOffsetsToTxn, and commits them', async () => {
    const { calls, cluster } = coordinator(0);
    const eos = await transacting(cluster);
    await eos.addOffsetsToTransaction('group');
    await eos.sendOffsets(offsets);
    await eos.commit();
    expect(calls).toMatchObject({ addOffsetsToTxn: 1, txnOffsetCommit: 1, endTxn: 1 });
  });

  it('adds them again in the next transaction', async () => {
    const { calls, cluster } = coordinator(0);
    const eos = await transacting(cluster);
    await eos.addOffsetsToTransaction('group');
    await eos.sendOffsets(offsets);
    await eos.commit();
    eos.beginTransaction();
    await eos.sendOffsets(offsets);
    await eos.commit();
    expect(calls).toMatchObject({ addOffsetsToTxn: 2, txnOffsetCommit: 2, endTxn: 2 });
  });

  it('waits out CONCURRENT_TRANSACTIONS as sendOffsets does', async () => {
    const { calls, cluster } = coordinator(2);
    const eos = await transacting(cluster);
    await eos.addOffsetsToTransaction('group');
    expect(calls.addOffsetsToTxn).toBe(3);
  });
});

async function oneTransaction(eos: EosManager): Promise<void> {
  await eos.addPartitionsToTransaction([{ topic: 'results', partitions: [{ partition: 0 }] }]);
  await eos.sendOffsets({
    consumerGroupId: 'group',
    topics: [{ topic: 'requests', partitions: [{ partition: 0, offset: '5' }] }],
  });
  await eos.commit();
}
