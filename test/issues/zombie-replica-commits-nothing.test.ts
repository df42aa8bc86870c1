/**
 * Issue 12: one transactional producer per process is safe only if a replica that lost its
 * partitions without knowing it (a zombie) cannot commit for them. Here a replica is stopped
 * with SIGSTOP past its session timeout while it holds requests under way; the other replica
 * takes its partitions and answers everything; then the zombie is continued. Whatever it had
 * under way, its commit is refused (its generation is over) or dropped when it rejoins as a new
 * member: every request keeps exactly one outcome.
 */
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { expectExactlyOneOutcomeEach } from '../helpers/service.js';
import { useTestKafka } from '../helpers/test-kafka.js';

const stack = useTestKafka();

const ZOMBIE_HANDLED = [
  "commit refused: this member's group generation is over",
  'rejoined the group after missing a generation',
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
      VENDOR_LIMITS: JSON.stringify({ 'lawsuits-summary': { ratePerSecond: 100, maxConcurrent: 20 } }),
    };
    const {
      publishSummaries,
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
    await publishSummaries('zombie', total, 1000);
    await collector.waitFor(() => collector.results().length >= 40, 60_000, 'the first results');
    expect(await committedTransactions(adminPort)).toBeGreaterThan(0);

    zombie.kill('SIGSTOP');
    // The other replica takes the zombie's partitions once its session expires and its open
    // transaction is aborted, and answers every request.
    await expectExactlyOneOutcomeEach(collector, 'zombie', total, 120_000);
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
    console.log(
      `zombie: ${ZOMBIE_HANDLED.filter((line) => zombieLog.includes(line)).join('; ')}; ${committedAtStop} transactions committed before the stop`,
    );
  });
});
