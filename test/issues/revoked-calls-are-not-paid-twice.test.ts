/**
 * Issue 14, case 10: rolling restarts paid again. When a second replica joins, the one that
 * stays loses partitions while its vendor calls are under way. Those calls are paid whatever
 * happens, so they must finish and store their outcome for the partition's next owner, who
 * reuses it instead of calling the vendor again.
 */
import type { Kafka } from 'kafkajs';
import { beforeAll, describe, expect, it } from 'vitest';
import { topicNames } from '../../src/contract/operations.js';
import { createSandbox } from '../../src/sandbox/index.js';
import {
  OutcomeCollector,
  closeAfterEach,
  publish,
  startTestService,
  summaryRequests,
  SANDBOX_KEY,
  testKafka,
  testPrefix,
} from '../helpers/service.js';

let kafka: Kafka;
const onCleanup = closeAfterEach();

beforeAll(() => {
  kafka = testKafka();
});

describe('a partition revoked with vendor calls under way', () => {
  it('lets them finish and store their paid outcome, so the new owner pays nothing twice', async () => {
    const prefix = testPrefix('revoked-calls');
    // Slow calls: when the second instance joins, the first has a full set of calls under way.
    const sandbox = await createSandbox({
      apiKey: SANDBOX_KEY,
      knobs: { latencyMeanMs: 2000, latencyJitterMs: 0 },
    });
    onCleanup(() => sandbox.close());
    const env = { VENDOR_MAX_CONCURRENT: '12', KAFKA_SESSION_TIMEOUT_MS: '6000', COMMIT_INTERVAL_MS: '100' };
    const first = await startTestService(prefix, sandbox, env);
    onCleanup(() => first.service.stop());
    const collector = new OutcomeCollector(kafka, prefix);
    await collector.start();
    onCleanup(() => collector.stop());
    const total = 150;
    await publish(
      kafka,
      topicNames(prefix).request('lawsuits-summary'),
      summaryRequests('revoked', total, 3000),
    );
    await collector.waitFor(() => collector.results().length >= 12, 60_000, 'the first results');
    const callsBeforeJoin = sandbox.counters().byOperation['lawsuits-summary'] ?? 0;
    const second = await startTestService(prefix, sandbox, env);
    onCleanup(() => second.service.stop());
    await collector.waitFor(() => collector.outcomesByRequest().size >= total, 120_000, 'every outcome');
    await new Promise((resolve) => setTimeout(resolve, 1000));

    const byRequest = [...collector.outcomesByRequest().entries()].filter(([id]) =>
      id.startsWith('revoked-'),
    );
    expect(byRequest).toHaveLength(total);
    expect(byRequest.filter(([, outcomes]) => outcomes.length !== 1).map(([id]) => id)).toEqual([]);
    // The join revoked partitions while calls were under way (else this test proves nothing).
    expect(callsBeforeJoin).toBeLessThan(total);
    const billedTwice = Object.values(sandbox.counters().byFingerprint).filter((n) => n > 1).length;
    console.log(
      `revoked calls: ${callsBeforeJoin} calls before the join, ${sandbox.counters().billed} billed for ${total} requests, ${billedTwice} billed twice`,
    );
    expect(billedTwice).toBe(0);
  });
});
