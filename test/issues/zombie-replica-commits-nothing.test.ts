/**
 * Issue 12: one transactional producer per process is safe only if a replica that lost its
 * partitions without knowing it (a zombie) cannot commit for them. Here a replica is stopped
 * with SIGSTOP past its session timeout while it holds requests under way; the other replica
 * takes its partitions and answers everything; then the zombie is continued. Whatever it had
 * under way, its commit is refused (its generation is over), or dropped when the client tells it
 * its partitions were lost (its session expired): every request keeps exactly one outcome.
 *
 * Both lanes (issue 41): a bulk backlog, its partitions paused by a small LANE_BULK_QUEUE, is
 * under way on the zombie too, and keeps exactly one outcome per request as well.
 */
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { topicNames } from '../../src/contract/operations.js';
import {
  answeredTagged,
  expectExactlyOneOutcomeEach,
  expectExactlyOneOutcomeEachLane,
  publish,
  summaryRequests,
} from '../helpers/service.js';
import { windowPaused } from '../helpers/paused.js';
import { useTestKafka } from '../helpers/test-kafka.js';
import { until } from '../helpers/wait.js';

const stack = useTestKafka();

const ZOMBIE_HANDLED = [
  "commit refused: this member's group generation is over",
  'partitions lost (session expired)',
];

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

async function committedTransactions(adminPort: number): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${adminPort}/metrics`)).text();
  const line = /^verification_transactions_committed_total (\d+)/m.exec(text);
  return Number(line?.[1] ?? Number.NaN);
}

describe('a replica stopped past its session timeout, then continued', () => {
  it('commits nothing for the partitions it lost: every request keeps exactly one outcome', async () => {
    const adminPort = await freePort();
    const settings = {
      KAFKA_SESSION_TIMEOUT_MS: '6000',
      KAFKA_TRANSACTION_TIMEOUT_MS: '5000',
      PARTITION_WINDOW: '40',
      LANE_BULK_QUEUE: '6',
      VENDOR_LIMITS: JSON.stringify({ 'lawsuits-summary': { ratePerSecond: 100, maxConcurrent: 20 } }),
    };
    const {
      publishSummaries,
      prefix,
      collector,
      env,
      child: zombie,
    } = await stack.startProcess('zombie', {
      knobs: { latencyMeanMs: 250, latencyJitterMs: 50 },
      env: { ...settings, ADMIN_PORT: String(adminPort) },
    });
    let zombieLog = '';
    zombie.stdout?.on('data', (chunk: Buffer) => (zombieLog += chunk.toString()));
    await stack.spawn({ ...env, ADMIN_PORT: '0' });
    const total = 200;
    const bulk = 300;
    const bulkTopic = topicNames(prefix).request('lawsuits-summary', 'bulk');
    await publish(stack.kafka, bulkTopic, summaryRequests('zombiebulk', bulk, 8000));
    await publishSummaries('zombie', total, 1000);
    await collector.waitFor(() => collector.results().length >= 40, 60_000, 'the first results');
    expect(await committedTransactions(adminPort)).toBeGreaterThan(0);
    // The zombie's bulk lane is full and paused when it stops, mid-backlog.
    await until("the zombie's full bulk lane", () => windowPaused(adminPort, bulkTopic));

    zombie.kill('SIGSTOP');
    const bulkAtStop = answeredTagged(collector, 'zombiebulk');
    expect(bulkAtStop).toBeLessThan(bulk);
    // The other replica takes the zombie's partitions once its session expires and its open
    // transaction is aborted, and answers every request of both lanes.
    await expectExactlyOneOutcomeEachLane(
      collector,
      'zombie',
      { interactive: total, bulk },
      { waitMs: 120_000, checkMs: 10_000 },
    );
    const committedAtStop = await (async () => {
      zombie.kill('SIGCONT');
      return committedTransactions(adminPort);
    })();

    await collector.waitFor(
      () => ZOMBIE_HANDLED.some((line) => zombieLog.includes(line)),
      30_000,
      'the zombie to find out',
    );
    // Nothing is left to do: a commit by the continued replica could only be a zombie's.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(await committedTransactions(adminPort)).toBe(committedAtStop);
    await expectExactlyOneOutcomeEach(collector, 'zombie', total, 10_000);
    await expectExactlyOneOutcomeEach(collector, 'zombiebulk', bulk, 10_000);
    console.log(
      `zombie: ${ZOMBIE_HANDLED.filter((line) => zombieLog.includes(line)).join('; ')}; ${committedAtStop} transactions committed before the stop; ${bulkAtStop} of ${bulk} bulk answered at the stop`,
    );
  });
});
