/**
 * On the real broker: a partition paused by the open breaker when a rebalance took it away was
 * never read again after the next rebalance gave it back. Revoking it dropped the runtime's
 * pause reasons, but kafkajs keeps a partition paused across assignments; once the breaker
 * closed, only the partitions the runtime held were resumed, and this one, never fetched, never
 * opened. Its requests were left unanswered until a restart.
 */
import { KafkaJS } from '@confluentinc/kafka-javascript';
import { describe, expect, it } from 'vitest';
import { expectExactlyOneOutcomeEach, publish, summaryRequests } from '../helpers/service.js';
import { watchAssignments } from '../helpers/stack.js';
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

    // Another member joins the service's group and takes one of the summary topic's partitions
    // (subscribed to that topic alone, it can be given no other), then leaves.
    const watch = watchAssignments();
    const member = kafka.consumer({
      kafkaJS: {
        groupId: `${prefix}.service`,
        fromBeginning: true,
        autoCommit: false,
        sessionTimeout: 6_000,
        // The service's assignor: a member of another protocol is refused by the group.
        partitionAssigners: [KafkaJS.PartitionAssigners.cooperativeSticky],
      },
      ...watch.config,
    });
    onCleanup(() => member.disconnect());
    await member.connect();
    await member.subscribe({ topics: [summaryTopic] });
    await member.run({ eachBatch: () => Promise.resolve() });
    // With the cooperative assignor the partitions come in a second round, once the service has
    // given them up.
    const taken = (): number => watch.assigned.flat().filter(({ topic }) => topic === summaryTopic).length;
    await collector.waitFor(() => taken() > 0, 30_000, "the other member's share");
    expect(taken()).toBeGreaterThan(0);
    await member.disconnect();

    sandbox.setKnobs({ errorRate: 0 });
    await collector.waitFor(() => collector.outcomesByRequest().size >= 16, 90_000, 'every outcome');
    await expectExactlyOneOutcomeEach(collector, 'back-a', 6, 1_000);
    await expectExactlyOneOutcomeEach(collector, 'back-b', 10, 1_000);
  });
});
