/**
 * Found by the fault suite's broker scenario: 2 of 150 requests never answered. After a broker
 * restart a replica's transactional producer was fenced while it held requests taken and not
 * yet committed; what it had taken waited for the next rebalance. Here the fence comes from a
 * producer that takes over the process's transactional id while requests are in flight (as a
 * transaction timed out by the broker does too): the service replaces its producer, commits
 * what it had again, and every request is answered exactly once.
 */
import { Partitioners } from 'kafkajs';
import { describe, it } from 'vitest';
import { expectExactlyOneOutcomeEach } from '../helpers/service.js';
import { useTestKafka } from '../helpers/test-kafka.js';

const { kafka, start } = useTestKafka();

describe('a process whose transactional producer is fenced while it holds uncommitted work', () => {
  it('commits that work again with a new producer, so every request is answered once', async () => {
    const { collector, publishSummaries } = await start('fenced', {
      knobs: { latencyMeanMs: 400, latencyJitterMs: 0 },
      env: { TOPIC_PARTITIONS: '1', KAFKA_TRANSACTIONAL_ID: 'fenced-test.replica-1' },
    });
    const total = 60;
    await publishSummaries('fenced', total, 5000);
    await collector.waitFor(() => collector.results().length >= 5, 60_000, 'the first results');
    // Another producer with the process's transactional id: the service's producer is fenced
    // at its next transaction, with later requests taken and not yet committed.
    const intruder = kafka.producer({
      transactionalId: 'fenced-test.replica-1',
      idempotent: true,
      maxInFlightRequests: 1,
      createPartitioner: Partitioners.DefaultPartitioner,
    });
    await intruder.connect();
    const transaction = await intruder.transaction();
    await transaction.abort();
    await intruder.disconnect();
    await expectExactlyOneOutcomeEach(collector, 'fenced', total, 60_000);
  });
});
