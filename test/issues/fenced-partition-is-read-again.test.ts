/**
 * Found by the fault suite's broker scenario: 2 of 150 requests never answered. After a broker
 * restart both replicas' consumers crashed and came back one after the other; the second's
 * producers were fenced by the first, which held its partitions for a moment. The fenced
 * replica dropped the partition and opened it again on the next batch, but its consumer went
 * on from where it was, past the messages it had taken and never committed: they waited for
 * the next rebalance. Here the fence comes from a producer that takes over a partition's
 * transactional id while requests are in flight; every request must still be answered.
 */
import { Partitioners } from 'kafkajs';
import { describe, it } from 'vitest';
import { expectExactlyOneOutcomeEach } from '../helpers/service.js';
import { useTestKafka } from '../helpers/test-kafka.js';

const { kafka, start } = useTestKafka();

describe('a partition whose producer is fenced while it is still ours', () => {
  it('is read again from its committed offset, so every request is answered', async () => {
    const {
      summaryTopic: topic,
      config,
      collector,
      publishSummaries,
    } = await start('fenced', {
      knobs: { latencyMeanMs: 400, latencyJitterMs: 0 },
      env: { TOPIC_PARTITIONS: '1' },
    });
    const total = 60;
    await publishSummaries('fenced', total, 5000);
    await collector.waitFor(() => collector.results().length >= 5, 60_000, 'the first results');
    // Another producer with the partition's transactional id: the service's producer is fenced
    // at its next transaction, with later requests taken and not yet committed.
    const intruder = kafka.producer({
      transactionalId: `${config.KAFKA_GROUP_ID}.${topic}.0`,
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
