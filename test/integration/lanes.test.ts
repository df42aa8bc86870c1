/**
 * Issue 41: priority lanes on the real stack. A bulk backlog on `<prefix>.requests.<op>.bulk`
 * drains at the vendor limit; interactive requests published behind it on the interactive
 * topic are answered first, and every request of both lanes gets exactly one outcome.
 */
import { describe, expect, it } from 'vitest';
import { topicNames } from '../../src/contract/operations.js';
import { expectExactlyOneOutcomeEach, publish, summaryRequests } from '../helpers/service.js';
import { useTestKafka } from '../helpers/test-kafka.js';

const stack = useTestKafka();

describe('priority lanes', () => {
  it('answers an interactive request published behind a bulk backlog first, and both lanes exactly once', async () => {
    const { kafka, prefix, collector, admin } = await stack
      .start('lanes', {
        knobs: { latencyMeanMs: 20, latencyJitterMs: 5 },
        env: { VENDOR_RATE_PER_SECOND: '20', LANE_BULK_QUEUE: '60' },
      })
      .then((started) => ({ ...started, kafka: stack.kafka }));
    const topics = topicNames(prefix);
    const bulkTotal = 200;
    await publish(kafka, topics.request('lawsuits-summary', 'bulk'), summaryRequests('bulk', bulkTotal, 0));
    const bulkAnswered = (): number =>
      collector.results().filter((r) => String(r.value.requestId).startsWith('bulk-')).length;
    // The backlog drains at 20/s: the lane holds 60 taken requests, and the limiter has them.
    await collector.waitFor(() => bulkAnswered() >= 20, 60_000, 'the bulk lane under way');

    const before = bulkAnswered();
    await publish(kafka, topics.request('lawsuits-summary'), summaryRequests('int', 5, 1000));
    await collector.waitFor(
      () => collector.results().filter((r) => String(r.value.requestId).startsWith('int-')).length === 5,
      30_000,
      'the interactive requests',
    );
    const during = bulkAnswered() - before;
    console.log(`lanes: ${during} bulk outcomes while the 5 interactive requests were answered`);
    // Behind the bulk lane's 60 taken requests, in one queue, they would have waited 3 s (60
    // bulk outcomes at 20/s); with the lanes, about their own pipeline's time.
    expect(during).toBeLessThanOrEqual(20);
    expect(bulkAnswered()).toBeLessThan(bulkTotal - 60);

    await expectExactlyOneOutcomeEach(collector, 'bulk', bulkTotal, 120_000);
    await expectExactlyOneOutcomeEach(collector, 'int', 5, 10_000);
    const origin = (id: string): unknown =>
      collector.results().find((r) => r.value.requestId === id)?.value.origin;
    expect(origin('bulk-0')).toMatchObject({ topic: topics.request('lawsuits-summary', 'bulk') });
    expect(origin('int-0')).toMatchObject({ topic: topics.request('lawsuits-summary') });

    const metrics = await (await admin('/metrics')).text();
    expect(metrics).toMatch(
      /verification_lane_calls_started_total\{operation="lawsuits-summary",lane="bulk"\} 200\b/,
    );
    expect(metrics).toMatch(
      /verification_lane_calls_started_total\{operation="lawsuits-summary",lane="interactive"\} 5\b/,
    );
  }, 300_000);
});
