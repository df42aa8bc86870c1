/**
 * The contract's central guarantee on the real stack: every request yields exactly one outcome
 * for a read_committed reader across a crash (SIGKILL of a real service process mid-stream) and
 * across rebalances (a second instance joining), and the replicas share one vendor quota.
 */
import type { ChildProcess } from 'node:child_process';
import type { Kafka } from 'kafkajs';
import { beforeAll, describe, expect, it } from 'vitest';
import { topicNames } from '../../src/contract/operations.js';
import { createSandbox, type Sandbox } from '../../src/sandbox/index.js';
import {
  OutcomeCollector,
  closeAfterEach,
  expectExactlyOneOutcomeEach,
  summaryRequests,
  SANDBOX_KEY,
  publish,
  serviceEnv,
  startTestService,
  testKafka,
  testPrefix,
} from '../helpers/service.js';
import { spawnService as spawnProcess } from '../helpers/service-process.js';

let kafka: Kafka;
const onCleanup = closeAfterEach();

beforeAll(() => {
  kafka = testKafka();
});

const spawnService = (env: Record<string, string>): Promise<ChildProcess> => spawnProcess(env, onCleanup);

describe('exactly one outcome per request', () => {
  it.each([{ signal: 'SIGKILL' as const }, { signal: 'SIGTERM' as const }])(
    'gives exactly one outcome per request when the service gets $signal mid-stream and a new one takes over',
    async ({ signal }) => {
      const prefix = testPrefix(`stop-${signal}`);
      const sandbox: Sandbox = await createSandbox({
        apiKey: SANDBOX_KEY,
        knobs: { latencyMeanMs: 30, latencyJitterMs: 20 },
      });
      onCleanup(() => sandbox.close());
      // A small window: the stopped instance holds at most 3 x 40 requests, so the next one has work
      // left whatever the stop (SIGTERM finishes what the first one holds).
      const env = serviceEnv(prefix, sandbox, {
        VENDOR_MAX_CONCURRENT: '10',
        COMMIT_INTERVAL_MS: '100',
        KAFKA_SESSION_TIMEOUT_MS: '6000',
        PARTITION_WINDOW: '40',
      });
      const first = await spawnService(env);
      // After the service: it creates the topics.
      const collector = new OutcomeCollector(kafka, prefix);
      await collector.start();
      onCleanup(() => collector.stop());
      const total = 300;
      await publish(
        kafka,
        topicNames(prefix).request('lawsuits-summary'),
        summaryRequests('stop', total, 1000),
      );
      await collector.waitFor(() => collector.results().length >= 60, 60_000, 'the first results');
      const exited = new Promise<number | null>((resolve) =>
        first.once('exit', (code) => {
          resolve(code);
        }),
      );
      first.kill(signal);
      const code = await exited;
      // SIGTERM finishes in-flight work within SHUTDOWN_TIMEOUT_MS, commits and exits 0.
      if (signal === 'SIGTERM') expect(code).toBe(0);
      const seenAtStop = collector.results().length;
      expect(seenAtStop).toBeLessThan(total);
      await spawnService(env);
      await collector.waitFor(
        () => collector.outcomesByRequest().size >= total,
        120_000,
        'every outcome after the restart',
      );
      // Late duplicates would arrive after the last new outcome: give them time to show.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expectExactlyOneOutcomeEach(collector, 'stop', total);
      // Paid twice only if the process died between the vendor's answer and remembering it.
      const billedTwice = Object.values(sandbox.counters().byFingerprint).filter((n) => n > 1).length;
      if (signal === 'SIGTERM') expect(billedTwice).toBe(0);
      else expect(billedTwice).toBeLessThanOrEqual(10);
      console.log(`${signal}: ${seenAtStop} results before the stop, ${billedTwice} requests billed twice`);
    },
  );

  it('two instances share one quota and one outcome per request across their rebalance', async () => {
    const prefix = testPrefix('quota');
    const sandbox = await createSandbox({
      apiKey: SANDBOX_KEY,
      knobs: { latencyMeanMs: 20, latencyJitterMs: 10 },
    });
    onCleanup(() => sandbox.close());
    const env = {
      VENDOR_LIMITS: JSON.stringify({ 'lawsuits-summary': { ratePerSecond: 25, maxConcurrent: 10 } }),
      KAFKA_SESSION_TIMEOUT_MS: '6000',
    };
    const a = await startTestService(prefix, sandbox, env);
    onCleanup(() => a.service.stop());
    const collector = new OutcomeCollector(kafka, prefix);
    await collector.start();
    onCleanup(() => collector.stop());
    const total = 150;
    await publish(
      kafka,
      topicNames(prefix).request('lawsuits-summary'),
      summaryRequests('quota', total, 2000),
    );
    await collector.waitFor(() => collector.results().length >= 10, 30_000, 'the first results');
    const b = await startTestService(prefix, sandbox, env);
    onCleanup(() => b.service.stop());
    const started = Date.now();
    await collector.waitFor(() => collector.outcomesByRequest().size >= total, 60_000, 'every outcome');
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expectExactlyOneOutcomeEach(collector, 'quota', total);
    const counters = sandbox.counters();
    expect(counters.maxInOneSecond).toBeLessThanOrEqual(25);
    // The limiter spaces its slots (GCRA); arrival times at a loaded sandbox jitter by a few
    // milliseconds, so a sliding second may catch one call more than the slots it spans.
    expect(counters.maxInAnySlidingSecond).toBeLessThanOrEqual(26);
    expect(counters.byOperation['lawsuits-summary']).toBeGreaterThanOrEqual(total);
    console.log(
      `quota test: most calls in an aligned second ${counters.maxInOneSecond}, in any sliding second ${counters.maxInAnySlidingSecond} (limit 25); ${Date.now() - started} ms after the second instance joined`,
    );
  });
});
