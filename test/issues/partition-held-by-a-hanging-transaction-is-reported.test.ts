/**
 * Issue 37: after a broker SIGKILL the coordinator dropped the markers of a transaction that
 * held a request partition's offsets; the partition waited for "an earlier owner's open
 * transaction" until the end of the run, and nothing said so. The service cannot end another
 * producer's transaction, but a partition held past the transaction timeout (plus a margin) is
 * reported: a gauge per partition (and a warning, an alert, the console). Here the held
 * partition comes from an open transaction with a long timeout, which holds the group's offsets
 * as a hanging one does, against a service whose own transaction timeout is short; aborting it
 * (the operator's remedy) lets the partition flow again.
 */
import { KafkaJS } from '@confluentinc/kafka-javascript';
import { describe, expect, it } from 'vitest';
import { isRefusedMember } from '../../src/consumers/transactional-producer.js';
import { topicNames } from '../../src/contract/operations.js';
import type { Consumer, Producer } from '../../src/kafka/client.js';
import { cpfFor } from '../../src/sandbox/index.js';
import { publish } from '../helpers/service.js';
import { watchAssignments } from '../helpers/stack.js';
import { useTestKafka } from '../helpers/test-kafka.js';

const { kafka, onCleanup, start } = useTestKafka();
const CONSOLE_TOKEN = 'hanging-transaction-console-token';

/** A read-only console session's cookie, logged in with the token. */
async function consoleSession(
  admin: (path: string, init?: RequestInit) => Promise<Response>,
): Promise<RequestInit> {
  const response = await admin('/console/login', {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token: CONSOLE_TOKEN }).toString(),
  });
  const cookie = response.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  return { headers: { cookie } };
}

/**
 * Joins the group as a member of its own (with the service's assignor: a member of another
 * protocol is refused by the group), hands `send` that member once it has been given its share
 * (the client reads the member's generation and id from it when the offsets are sent), and
 * leaves. The service's rejoin can end that generation before the offsets arrive: refused, they
 * are sent again after the next assignment.
 */
async function sendOffsetsAsEarlierOwner(
  groupId: string,
  topic: string,
  send: (member: Consumer) => Promise<void>,
): Promise<void> {
  const watch = watchAssignments();
  const owner = kafka.consumer({
    kafkaJS: {
      groupId,
      fromBeginning: true,
      autoCommit: false,
      sessionTimeout: 6_000,
      heartbeatInterval: 500,
      partitionAssigners: [KafkaJS.PartitionAssigners.cooperativeSticky],
    },
    ...watch.config,
  });
  await owner.connect();
  try {
    await owner.subscribe({ topics: [topic] });
    await owner.run({ eachBatch: () => Promise.resolve() });
    for (let sent = 0, deadline = Date.now() + 60_000; ;) {
      if (watch.assigned.length > sent) {
        sent = watch.assigned.length;
        const refused = await send(owner).then(
          () => undefined,
          (error: unknown) => (error instanceof Error ? error : new Error(String(error))),
        );
        if (refused === undefined) return;
        if (!isRefusedMember(refused)) throw refused;
      }
      if (Date.now() > deadline) throw new Error('the earlier owner could not send its offsets');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    await owner.disconnect();
  }
}

describe('a request partition held by a transaction open past the transaction timeout', () => {
  it('is reported while held, and flows again once the transaction is aborted', async () => {
    const { prefix, collector, admin } = await start('hanging-tx', {
      // Reported 15 s past this: 16 s.
      env: { KAFKA_TRANSACTION_TIMEOUT_MS: '1000', CONSOLE_TOKEN: CONSOLE_TOKEN },
    });
    const session = await consoleSession(admin);
    const consoleStatus = async (): Promise<{ hanging: string[]; page: string }> => {
      const json = (await (await admin('/console/status.json', session)).json()) as {
        operations: { operation: string; hanging: string[] }[];
      };
      return {
        hanging: json.operations.find((o) => o.operation === 'lawsuits-summary')?.hanging ?? [],
        page: await (await admin('/console/status', session)).text(),
      };
    };
    const topic = topicNames(prefix).request('lawsuits-summary');
    const held = (text: string): string[] =>
      [
        ...text.matchAll(
          /^verification_partitions_held_by_hanging_transaction\{topic="([^"]+)",partition="(\d+)"\} 1$/gm,
        ),
      ].map(([, t, p]) => `${t}/${p}`);

    // An earlier owner's transaction holds the offsets of every partition of the topic for the
    // service's group, and is neither committed nor aborted. Offsets go with the generation of a
    // member of the group (KIP-447): the earlier owner joins, sends them, and leaves, as a
    // replica that died mid-transaction would. A refused TxnOffsetCommit leaves the transaction
    // to be aborted: the next try begins another.
    const producer = kafka.producer({
      kafkaJS: { transactionalId: `${prefix}.other-owner`, transactionTimeout: 300_000, idempotent: true },
    });
    await producer.connect();
    onCleanup(() => producer.disconnect());
    // The client's transaction is its producer, in a transaction.
    let transaction: Producer | undefined;
    await sendOffsetsAsEarlierOwner(`${prefix}.service`, topic, async (member) => {
      const open = await producer.transaction();
      try {
        await open.sendOffsets({
          consumer: member,
          topics: [{ topic, partitions: [0, 1, 2].map((partition) => ({ partition, offset: '0' })) }],
        });
      } catch (error) {
        await open.abort();
        throw error;
      }
      transaction = open;
    });
    if (!transaction) throw new Error('no transaction holds the offsets');

    const taxId = cpfFor('happy', 3_801);
    await publish(kafka, topic, [{ key: taxId, value: { requestId: 'held-1', params: { taxId } } }]);
    let reported: string[] = [];
    for (const deadline = Date.now() + 60_000; reported.length === 0;) {
      if (Date.now() > deadline) throw new Error('the held partition was not reported');
      await new Promise((resolve) => setTimeout(resolve, 500));
      reported = held(await (await admin('/metrics')).text());
    }
    // Every partition the transaction holds is reported, from its assignment: the client
    // fetches nothing of a partition whose committed offset is not stable.
    await expect
      .poll(async () => held(await (await admin('/metrics')).text()).sort(), { timeout: 30_000 })
      .toEqual([0, 1, 2].map((p) => `${topic}/${p}`));
    expect(collector.results()).toEqual([]);
    // The console's status page says so too (from this replica's next heartbeat).
    await expect.poll(async () => (await consoleStatus()).hanging.length, { timeout: 30_000 }).toBe(3);
    for (const line of (await consoleStatus()).hanging) expect(line).toMatch(/^[012] \(\d+ s\)$/);
    expect((await consoleStatus()).page).toMatch(
      /<p class="error" id="hanging">[^<]*<span id="hanging-list">lawsuits-summary partition [012] /,
    );

    await transaction.abort();
    await collector.waitFor(() => collector.results().length === 1, 60_000, 'the held request answered');
    expect(collector.results()[0]?.value.requestId).toBe('held-1');
    expect(collector.errors()).toEqual([]);
    // Each partition's watch reads its stable offset again on its own round: the partitions
    // without a request are let go shortly after the one that had it.
    await expect
      .poll(async () => held(await (await admin('/metrics')).text()), { timeout: 30_000 })
      .toEqual([]);
    await expect.poll(async () => (await consoleStatus()).hanging, { timeout: 30_000 }).toEqual([]);
  }, 300_000);
});
