/**
 * Found by the cluster fault suite (coordinator-kills, the kill during the group's first
 * rebalance): outcomes stopped for 37 s. A replica's round failed as its partitions were
 * revoked; its producer was replaced but the new one connected only at the next round, and the
 * replica, left without work by the rebalance, had none. The broker kept the failed transaction
 * open until its timeout (30 s) and the coordinator's next check, and with it the last stable
 * offset of every output partition it had written to: the partitions' new owners committed, and
 * no read_committed reader saw their outcomes until then.
 *
 * Here a round fails the same way (its partitions revoked while it produced), with a transaction
 * timeout of 60 s and no round after it: a record written after it reaches a read_committed
 * reader long before that, the failed round's records never.
 */
import { describe, expect, it } from 'vitest';
import {
  createTransactionalProducer,
  RevokedBeforeCommit,
} from '../../src/consumers/transactional-producer.js';
import { readCommitted } from '../helpers/committed-reader.js';
import { createTopic, idempotentProducer, randomName } from '../helpers/stack.js';
import { useTestKafka } from '../helpers/test-kafka.js';
import { until } from '../helpers/wait.js';

const { kafka, admin, onCleanup } = useTestKafka();

const TRANSACTION_TIMEOUT_MS = 60_000;

describe('a round that fails after it produced, on a replica with no next round', () => {
  it('leaves no open transaction holding the outputs from read_committed readers', async () => {
    const client = await admin();
    const output = randomName('failed-round-out');
    await createTopic(client, output);
    onCleanup(() => client.deleteTopics({ topics: [output] }));

    const producer = createTransactionalProducer(kafka, {
      transactionalId: randomName('failed-round'),
      transactionTimeoutMs: TRANSACTION_TIMEOUT_MS,
    });
    onCleanup(() => producer.close());
    // Its partitions are revoked before its offsets go: the outputs were produced, nothing commits.
    const consumer = kafka.consumer({ kafkaJS: { groupId: randomName('failed-round-group') } });
    const record = (value: string) => ({
      topic: output,
      key: Buffer.from('k'),
      value: Buffer.from(JSON.stringify({ value })),
      headers: {},
    });
    await expect(
      producer.commit([record('failed round')], [{ topic: 'requests', partition: 0, offset: '1' }], {
        consumer,
        owns: () => false,
      }),
    ).rejects.toBeInstanceOf(RevokedBeforeCommit);

    // No further call of the producer: nothing of this replica comes after the failed round.
    const plain = idempotentProducer(kafka);
    onCleanup(() => plain.disconnect());
    await plain.connect();
    await plain.send({ topic: output, messages: [{ value: JSON.stringify({ value: 'after' }) }] });

    const cleanups: (() => Promise<unknown>)[] = [];
    onCleanup(() => Promise.all(cleanups.map((close) => close())));
    const seen = await readCommitted(
      kafka,
      output,
      cleanups,
      ({ body }) => (body as { value: string }).value,
    );
    // Well within the transaction's 60 s: the old code left it open that long, then up to 10 s more.
    await until('the record written after the failed round', () => seen.includes('after'), {
      timeoutMs: 30_000,
      seen: () => JSON.stringify(seen),
    });
    expect(seen).toEqual(['after']);
  });
});
