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
import { describe, expect, it } from 'vitest';
import { isRefusedMember } from '../../src/consumers/transactional-producer.js';
import { topicNames } from '../../src/contract/operations.js';
import { cpfFor } from '../../src/sandbox/index.js';
import { publish } from '../helpers/service.js';
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
 * Joins the group as a member of its own, hands `send` that member's generation and id, and
 * leaves. The service's rejoin can end that generation before the offsets arrive: refused, they
 * are sent again with the next generation.
 */
async function sendOffsetsAsEarlierOwner(
  groupId: string,
  topic: string,
  send: (member: { generationId: number; memberId: string }) => Promise<void>,
): Promise<void> {
  const joins: { generationId: number; memberId: string }[] = [];
  const owner = kafka.consumer({ groupId, sessionTimeout: 6_000, heartbeatInterval: 500 });
  owner.on(owner.events.GROUP_JOIN, ({ payload }) => {
    joins.push({ generationId: payload.generationId, memberId: payload.memberId });
  });
  await owner.connect();
  try {
    await owner.subscribe({ topics: [topic], fromBeginning: true });
    await owner.run({ eachBatch: () => Promise.resolve(), autoCommit: false });
    for (let sent = 0, deadline = Date.now() + 60_000; ;) {
      const member = joins.at(-1);
      if (member !== undefined && joins.length > sent) {
        sent = joins.length;
        const refused = await send(member).then(
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
    // member of the group (KIP-447; kafkajs as patched refuses them without one): the earlier
    // owner joins, sends them, and leaves, as a replica that died mid-transaction would.
    const producer = kafka.producer({
      transactionalId: `${prefix}.other-owner`,
      transactionTimeout: 300_000,
      idempotent: true,
      maxInFlightRequests: 1,
    });
    await producer.connect();
    onCleanup(() => producer.disconnect());
    const transaction = await producer.transaction();
    await sendOffsetsAsEarlierOwner(`${prefix}.service`, topic, async (member) => {
      await transaction.sendOffsets({
        consumerGroupId: `${prefix}.service`,
        topics: [{ topic, partitions: [0, 1, 2].map((partition) => ({ partition, offset: '0' })) }],
        consumerGroupMetadata: member,
      });
    });

    const taxId = cpfFor('happy', 3_801);
    await publish(kafka, topic, [{ key: taxId, value: { requestId: 'held-1', params: { taxId } } }]);
    let reported: string[] = [];
    for (const deadline = Date.now() + 60_000; reported.length === 0;) {
      if (Date.now() > deadline) throw new Error('the held partition was not reported');
      await new Promise((resolve) => setTimeout(resolve, 500));
      reported = held(await (await admin('/metrics')).text());
    }
    expect(reported).toHaveLength(1);
    expect(reported[0]).toMatch(new RegExp(`^${topic.replace(/\./g, '\\.')}/[012]$`));
    expect(collector.results()).toEqual([]);
    // The console's status page says so too (from this replica's next heartbeat).
    const partition = reported[0]?.split('/').pop() ?? '';
    await expect
      .poll(async () => (await consoleStatus()).hanging, { timeout: 30_000 })
      .toEqual([expect.stringMatching(new RegExp(`^${partition} \\(\\d+ s\\)$`))]);
    expect((await consoleStatus()).page).toMatch(
      new RegExp(
        `<p class="error" id="hanging">[^<]*<span id="hanging-list">lawsuits-summary partition ${partition} `,
      ),
    );

    await transaction.abort();
    await collector.waitFor(() => collector.results().length === 1, 60_000, 'the held request answered');
    expect(collector.results()[0]?.value.requestId).toBe('held-1');
    expect(collector.errors()).toEqual([]);
    expect(held(await (await admin('/metrics')).text())).toEqual([]);
    await expect.poll(async () => (await consoleStatus()).hanging, { timeout: 30_000 }).toEqual([]);
  }, 300_000);
});
