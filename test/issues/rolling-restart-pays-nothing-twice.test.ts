/**
 * Issue 14, case 10a: rolling SIGTERM restarts made extra billable calls. A replica that stays
 * but loses a partition in the rebalance aborted the vendor calls it had under way, so their
 * paid outcome was never stored and the partition's new owner paid again. Two real service
 * processes against a slow vendor: a second one joins, the first is stopped with SIGTERM and
 * started again, each time with calls in flight. No request may be billed twice, and each gets
 * exactly one outcome.
 *
 * Both lanes (issue 41): a bulk backlog crosses the same restarts, its partitions paused by a
 * small LANE_BULK_QUEUE before the first replica leaves and again once it is back.
 */
import type { ChildProcess } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { topicNames } from '../../src/contract/operations.js';
import { freePort } from '../helpers/free-port.js';
import { windowPaused } from '../helpers/paused.js';
import {
  answeredTagged,
  billedTwice,
  expectExactlyOneOutcomeEachLane,
  publish,
  summaryRequests,
} from '../helpers/service.js';
import { useTestKafka } from '../helpers/test-kafka.js';
import { until } from '../helpers/wait.js';

const stack = useTestKafka();

async function stopGracefully(child: ChildProcess): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  return exited;
}

describe('rolling restarts with vendor calls in flight', () => {
  it('bills no request twice and gives each exactly one outcome', async () => {
    // Slow calls: every rebalance below finds calls under way on the partitions that move.
    // The first replica's console on a port of its own, to read its paused partitions.
    const firstAdminPort = await freePort();
    const {
      publishSummaries,
      prefix,
      sandbox,
      collector,
      env,
      child: first,
    } = await stack.startProcess('rolling', {
      knobs: { latencyMeanMs: 1500, latencyJitterMs: 300 },
      env: {
        ADMIN_PORT: String(firstAdminPort),
        // A bulk lane holding at most 6 uncommitted requests per replica: its partitions pause
        // when full, and resume as commits free room, all through the restarts.
        LANE_BULK_QUEUE: '6',
        VENDOR_MAX_CONCURRENT: '20',
        PARTITION_WINDOW: '30',
        KAFKA_SESSION_TIMEOUT_MS: '6000',
        SHUTDOWN_TIMEOUT_MS: '10000',
        VENDOR_TIMEOUT_MS: '8000',
      },
    });
    const total = 240;
    const bulk = 150;
    const bulkTopic = topicNames(prefix).request('lawsuits-summary', 'bulk');
    await publish(stack.kafka, bulkTopic, summaryRequests('rollbulk', bulk, 9000));
    await publishSummaries('roll', total, 3000);
    // Calls that reached the vendor and are not answered yet.
    const inFlight = (): number => {
      const counters = sandbox.counters();
      return counters.total - counters.billed;
    };
    await collector.waitFor(() => collector.results().length >= 10, 60_000, 'the first results');
    // A second replica joins: the first loses partitions with calls under way.
    const secondAdminPort = await freePort();
    await stack.spawn({ ...env, ADMIN_PORT: String(secondAdminPort) });
    await collector.waitFor(() => collector.results().length >= 80, 90_000, 'results after the join');
    expect(inFlight()).toBeGreaterThan(0);
    const bulkAnswered = (): number => answeredTagged(collector, 'rollbulk');
    // The bulk lane is full and paused on the first replica when it leaves, mid-backlog.
    await until('a full bulk lane', () => windowPaused(firstAdminPort, bulkTopic));
    // Rolling restart of the first: it leaves (SIGTERM drains), comes back, and takes partitions
    // from the second while that one has calls under way.
    expect(await stopGracefully(first)).toBe(0);
    const bulkAtStop = bulkAnswered();
    expect(bulkAtStop).toBeLessThan(bulk);
    await stack.spawn(env);
    // Back, the group's bulk partitions fill a lane again and pause while the backlog lasts: the
    // first's, or the second's when the cooperative assignor leaves it every bulk partition
    // (it balances partition counts, not topics).
    await until(
      'a full bulk lane after the restart',
      async () =>
        (await windowPaused(firstAdminPort, bulkTopic)) || (await windowPaused(secondAdminPort, bulkTopic)),
    );
    await expectExactlyOneOutcomeEachLane(
      collector,
      'roll',
      { interactive: total, bulk },
      { waitMs: 180_000, checkMs: 10_000 },
    );
    const counters = sandbox.counters();
    const twice = billedTwice(sandbox);
    console.log(
      `rolling restarts: ${counters.total} vendor calls for ${total} interactive and ${bulk} bulk requests (${bulkAtStop} bulk answered at the stop), ${twice} billed twice`,
    );
    expect(twice).toBe(0);
    // Every call made counts, answered or not: one per request, none aborted and repeated.
    expect(counters.rateLimited + counters.faults).toBe(0);
    expect(counters.total).toBe(total + bulk);
  }, 400_000);
});
