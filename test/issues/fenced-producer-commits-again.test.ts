/**
 * Found by the fault suite's broker scenario: 2 of 150 requests never answered. After a broker
 * restart a replica's transactional producer was fenced while it held requests taken and not
 * yet committed; what it had taken waited for the next rebalance. Here the fence comes from a
 * producer that takes over the process's transactional id while requests are in flight (as a
 * transaction timed out by the broker does too): the service replaces its producer, commits
 * what it had again, and every request is answered exactly once.
 *
 * Both lanes (issue 41): a bulk backlog, its partition paused by a small LANE_BULK_QUEUE, is
 * held uncommitted at the fence too, and is answered exactly once as well.
 */
import { describe, expect, it } from 'vitest';
import { topicNames } from '../../src/contract/operations.js';
import { windowPaused } from '../helpers/paused.js';
import {
  answeredTagged,
  expectExactlyOneOutcomeEachLane,
  publish,
  summaryRequests,
} from '../helpers/service.js';
import { useTestKafka } from '../helpers/test-kafka.js';
import { until } from '../helpers/wait.js';

const { kafka, start } = useTestKafka();

describe('a process whose transactional producer is fenced while it holds uncommitted work', () => {
  it('commits that work again with a new producer, so every request is answered once', async () => {
    const { collector, publishSummaries, prefix, service } = await start('fenced', {
      knobs: { latencyMeanMs: 400, latencyJitterMs: 0 },
      env: {
        TOPIC_PARTITIONS: '1',
        KAFKA_TRANSACTIONAL_ID: 'fenced-test.replica-1',
        LANE_BULK_QUEUE: '3',
      },
    });
    const total = 60;
    const bulk = 40;
    const bulkTopic = topicNames(prefix).request('lawsuits-summary', 'bulk');
    await publish(kafka, bulkTopic, summaryRequests('fencedbulk', bulk, 6000));
    await publishSummaries('fenced', total, 5000);
    await collector.waitFor(() => collector.results().length >= 5, 60_000, 'the first results');
    // The bulk lane is full (its partition paused) and holds uncommitted requests at the fence.
    await until('a full bulk lane', () => windowPaused(service.adminPort, bulkTopic));
    // Another producer with the process's transactional id: the service's producer is fenced
    // at its next transaction, with later requests taken and not yet committed.
    const intruder = kafka.producer({
      kafkaJS: { transactionalId: 'fenced-test.replica-1', idempotent: true },
    });
    await intruder.connect();
    const transaction = await intruder.transaction();
    await transaction.abort();
    await intruder.disconnect();
    const bulkAtFence = answeredTagged(collector, 'fencedbulk');
    expect(bulkAtFence).toBeLessThan(bulk);
    await expectExactlyOneOutcomeEachLane(
      collector,
      'fenced',
      { interactive: total, bulk },
      { waitMs: 90_000, checkMs: 10_000 },
    );
    console.log(`fenced: ${bulkAtFence} of ${bulk} bulk requests answered at the fence`);
  });
});
