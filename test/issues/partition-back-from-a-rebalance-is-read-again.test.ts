/**
 * On the real broker: a partition paused by the open breaker when a rebalance took it away was
 * never read again after the next rebalance gave it back. Revoking it dropped the runtime's
 * pause reasons, but kafkajs keeps a partition paused across assignments; once the breaker
 * closed, only the partitions the runtime held were resumed, and this one, never fetched, never
 * opened. Its requests were left unanswered until a restart.
 */
import type { ConsumerGroupJoinEvent } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { OPERATIONS, topicNames } from '../../src/contract/operations.js';
import { expectExactlyOneOutcomeEach, publish, summaryRequests } from '../helpers/service.js';
import { quickBreakerEnv, serverErrors, useTestKafka } from '../helpers/test-kafka.js';

const { kafka, start, onCleanup } = useTestKafka();

describe('a partition a rebalance takes away while the breaker holds it paused', () => {
  it('is read again once the group gives it back and the breaker closes', async () => {
    const { prefix, summaryTopic, sandbox, collector } = await start('back-from-rebalance', {
      // The breaker opens after two failures and stays open past the rebalances below.
      env: { TOPIC_PARTITIONS: '2', ...quickBreakerEnv(1, 2, 12_000) },
      knobs: serverErrors(503),
    });
    // Requests on both partitions open the breaker, which pauses both.
    await publish(kafka, summaryTopic, summaryRequests('back-a', 6, 700));
    await collector.waitFor(() => collector.errors().length >= 2, 30_000, 'the breaker opening');
    await publish(kafka, summaryTopic, summaryRequests('back-b', 10, 800));

    // Another member joins the service's group and takes some of its partitions, then leaves.
    const joins: ConsumerGroupJoinEvent['payload'][] = [];
    const member = kafka.consumer({ groupId: `${prefix}.service`, sessionTimeout: 6_000 });
    member.on(member.events.GROUP_JOIN, ({ payload }) => joins.push(payload));
    onCleanup(() => member.disconnect());
    await member.connect();
    const requestTopics = OPERATIONS.map((op) => topicNames(prefix).request(op));
    await member.subscribe({ topics: requestTopics, fromBeginning: true });
    await member.run({ autoCommit: false, eachBatch: () => Promise.resolve() });
    await collector.waitFor(() => joins.length > 0, 30_000, "the other member's join");
    expect(joins[0]?.memberAssignment[summaryTopic]?.length ?? 0).toBeGreaterThan(0);
    await member.disconnect();

    sandbox.setKnobs({ errorRate: 0 });
    await collector.waitFor(() => collector.outcomesByRequest().size >= 16, 90_000, 'every outcome');
    await expectExactlyOneOutcomeEach(collector, 'back-a', 6, 1_000);
    await expectExactlyOneOutcomeEach(collector, 'back-b', 10, 1_000);
  });
});
