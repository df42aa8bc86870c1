/**
 * Issue 14, case 10a: rolling SIGTERM restarts made extra billable calls. A replica that stays
 * but loses a partition in the rebalance aborted the vendor calls it had under way, so their
 * paid outcome was never stored and the partition's new owner paid again. Two real service
 * processes against a slow vendor: a second one joins, the first is stopped with SIGTERM and
 * started again, each time with calls in flight. No request may be billed twice, and each gets
 * exactly one outcome.
 */
import type { ChildProcess } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { billedTwice, expectExactlyOneOutcomeEach } from '../helpers/service.js';
import { useTestKafka } from '../helpers/test-kafka.js';

const stack = useTestKafka();

async function stopGracefully(child: ChildProcess): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  return exited;
}

describe('rolling restarts with vendor calls in flight', () => {
  it('bills no request twice and gives each exactly one outcome', async () => {
    // Slow calls: every rebalance below finds calls under way on the partitions that move.
    const {
      publishSummaries,
      sandbox,
      collector,
      env,
      child: first,
    } = await stack.startProcess('rolling', {
      knobs: { latencyMeanMs: 1500, latencyJitterMs: 300 },
      env: {
        VENDOR_MAX_CONCURRENT: '20',
        PARTITION_WINDOW: '30',
        KAFKA_SESSION_TIMEOUT_MS: '6000',
        SHUTDOWN_TIMEOUT_MS: '10000',
        VENDOR_TIMEOUT_MS: '8000',
      },
    });
    const total = 240;
    await publishSummaries('roll', total, 3000);
    // Calls that reached the vendor and are not answered yet.
    const inFlight = (): number => {
      const counters = sandbox.counters();
      return counters.total - counters.billed;
    };
    await collector.waitFor(() => collector.results().length >= 10, 60_000, 'the first results');
    // A second replica joins: the first loses partitions with calls under way.
    await stack.spawn(env);
    await collector.waitFor(() => collector.results().length >= 80, 90_000, 'results after the join');
    expect(inFlight()).toBeGreaterThan(0);
    // Rolling restart of the first: it leaves (SIGTERM drains), comes back, and takes partitions
    // from the second while that one has calls under way.
    expect(await stopGracefully(first)).toBe(0);
    await stack.spawn(env);
    await expectExactlyOneOutcomeEach(collector, 'roll', total, 180_000);
    const counters = sandbox.counters();
    const twice = billedTwice(sandbox);
    console.log(
      `rolling restarts: ${counters.total} vendor calls for ${total} requests, ${twice} billed twice`,
    );
    expect(twice).toBe(0);
    // Every call made counts, answered or not: one per request, none aborted and repeated.
    expect(counters.rateLimited + counters.faults).toBe(0);
    expect(counters.total).toBe(total);
  }, 400_000);
});
