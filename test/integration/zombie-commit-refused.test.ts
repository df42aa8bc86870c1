/**
 * KIP-447 on the real broker, through the client: a transaction's offsets go with the group
 * metadata of the consumer handed to sendOffsets (generation, member id), read when they are
 * sent. A member that the group has moved on without (a zombie: here one whose revocation never
 * returns, so it never rejoins) still holds the generation it had, and its offsets are refused,
 * so one transactional producer per process cannot commit for partitions it lost; the current
 * member's are taken, and a stable read waits for the transaction that holds them.
 */
import { randomUUID } from 'node:crypto';
import { KafkaJS } from '@confluentinc/kafka-javascript';
import { describe, expect, it } from 'vitest';
import { isRefusedMember } from '../../src/consumers/transactional-producer.js';
import { stableCommittedOffset } from '../../src/consumers/partitions.js';
import type { Consumer, Producer } from '../../src/kafka/client.js';
import { createTopic, type TopicPartition } from '../helpers/stack.js';
import { useTestKafka } from '../helpers/test-kafka.js';
import { until } from '../helpers/wait.js';

const { ErrorCodes } = KafkaJS;
const { kafka, admin, groupOffsets, onCleanup } = useTestKafka();

interface Member {
  consumer: Consumer;
  /** Each assignment it was given, in order. */
  assignments: TopicPartition[][];
  /** How many revocations it was asked for. */
  revocations: () => number;
}

/**
 * A group member that consumes nothing (an eager assignor: a rebalance revokes everything
 * first, and the member rejoins once its revocation returns). `hold`: its revocations return
 * only once `hold` resolves; until then the member keeps the generation it had, and the group
 * goes on without it once its rebalance timeout has passed.
 */
async function member(groupId: string, topic: string, hold?: Promise<void>): Promise<Member> {
  const assignments: TopicPartition[][] = [];
  let revocations = 0;
  const consumer = kafka.consumer({
    kafkaJS: {
      groupId,
      fromBeginning: true,
      autoCommit: false,
      sessionTimeout: 6_000,
      heartbeatInterval: 500,
      rebalanceTimeout: 8_000,
      partitionAssigners: [KafkaJS.PartitionAssigners.roundRobin],
    },
    rebalance_cb: async (error: { code: number }, assignment: TopicPartition[]): Promise<void> => {
      if (error.code === ErrorCodes.ERR__ASSIGN_PARTITIONS) {
        assignments.push(assignment.map(({ topic: t, partition }) => ({ topic: t, partition })));
        return;
      }
      revocations += 1;
      if (hold) await hold;
    },
  });
  onCleanup(() => consumer.disconnect());
  await consumer.connect();
  await consumer.subscribe({ topics: [topic] });
  await consumer.run({ eachBatch: () => Promise.resolve() });
  return { consumer, assignments, revocations: () => revocations };
}

/** The stable committed offset once no transaction holds it (undefined until then). */
function settledOffset(read: () => Promise<string | undefined>): Promise<string> {
  return until('the offset no transaction holds', read);
}

describe('a transaction committing offsets for a group member (KIP-447)', () => {
  it("is refused once the member's generation is over, and taken for the current one", async () => {
    const topic = `t.kip447.${randomUUID()}`;
    const groupId = `g.kip447.${randomUUID()}`;
    const client = await admin();
    await createTopic(client, topic, 2);
    const offsets = await groupOffsets(groupId, { stable: true });

    let release: () => void = () => undefined;
    const hold = new Promise<void>((resolve) => {
      release = resolve;
    });
    const zombie = await member(groupId, topic, hold);
    // Let go before the member disconnects (clean-ups run last opened, first closed).
    onCleanup(() => {
      release();
      return Promise.resolve();
    });
    await until("the first member's assignment", () => zombie.assignments.flat().length === 2);
    // The second member's join starts a rebalance; the first never returns from its revocation,
    // and the group completes the next generation without it: the second holds both partitions.
    const current = await member(groupId, topic);
    await until('the rebalance without the first member', () => current.assignments.flat().length === 2);
    expect(zombie.revocations()).toBe(1);

    const producer: Producer = kafka.producer({
      kafkaJS: { transactionalId: `tx.kip447.${randomUUID()}`, idempotent: true },
    });
    onCleanup(() => producer.disconnect());
    await producer.connect();
    const commit = async (through: Consumer, offset: string): Promise<Producer> => {
      const transaction = await producer.transaction();
      try {
        await transaction.send({ topic, messages: [{ value: offset }] });
        await transaction.sendOffsets({
          consumer: through,
          topics: [{ topic, partitions: [{ partition: 0, offset }] }],
        });
        return transaction;
      } catch (error) {
        await transaction.abort();
        throw error;
      }
    };

    // The zombie: its generation ended without it.
    const refused = await commit(zombie.consumer, '5').then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeDefined();
    expect(isRefusedMember(refused)).toBe(true);
    expect(await stableCommittedOffset(offsets, groupId, topic, 0)).toBe('-1');

    // The current member's offsets go in; until its transaction ends a stable read has none.
    const pending = await commit(current.consumer, '7');
    expect(await stableCommittedOffset(offsets, groupId, topic, 0)).toBeUndefined();
    // A stable read asks for its one partition: partition 1, which the pending transaction does
    // not hold, answers at once.
    expect(await stableCommittedOffset(offsets, groupId, topic, 1)).toBe('-1');
    await pending.commit();
    // EndTxn answers once the commit is decided; the coordinator writes its markers after that,
    // so a stable read right away may still find the transaction open (it did once in CI).
    expect(await settledOffset(() => stableCommittedOffset(offsets, groupId, topic, 0))).toBe('7');
    release();
  });
});
