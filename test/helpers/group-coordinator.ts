/**
 * Waits until a broker's group coordinator answers. A fresh broker (every testcontainers run, a
 * local stack just started on empty storage) creates its offsets topic on the first group
 * request and then loads its partitions; a consumer joining meanwhile is answered
 * COORDINATOR_LOAD_IN_PROGRESS and its client logs and retries it. dev-run, which asserts a
 * start without error lines, failed so when its service held the run's first group: the test
 * run's global setup asks here first.
 *
 * The question is a group's committed offsets, asked as a consumer asks them (librdkafka's
 * committed(), through openGroupOffsetsReader), never through the admin client: its
 * describeGroups crashed the test run with a segmentation fault when the coordinator was still
 * loading (src/kafka/client.ts, `Admin`). test/issues/coordinator-probe-survives-a-starting-broker
 * runs this against a broker as it starts.
 */
import { setTimeout as sleep } from 'node:timers/promises';

export const PROBE_GROUP = 'global-setup.coordinator-probe';
/** OffsetFetch names a partition; the topic need not exist. */
const PROBE_TOPIC = 'global-setup.coordinator-probe';

export interface ProbeOptions {
  /** Between attempts. */
  pauseMs?: number;
  /** Give up (rethrowing the last attempt's error) after this long. */
  deadlineMs?: number;
  /** One attempt's bound on its committed-offsets read. */
  attemptTimeoutMs?: number;
}

export async function groupCoordinatorReady(
  brokers: string,
  { pauseMs = 200, deadlineMs = 120_000, attemptTimeoutMs = 5_000 }: ProbeOptions = {},
): Promise<void> {
  // Loaded here, not at the module's top: the global setup loads the native client only when a
  // broker is to be probed, as it loads testcontainers only when it uses it.
  const { openGroupOffsetsReader } = await import('../../src/kafka/client.js');
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    let reader: Awaited<ReturnType<typeof openGroupOffsetsReader>> | undefined;
    try {
      reader = await openGroupOffsetsReader({ brokers: brokers.split(',') }, PROBE_GROUP, {
        stable: false,
        timeoutMs: attemptTimeoutMs,
      });
      await reader.fetchOffsets({ groupId: PROBE_GROUP, topics: [{ topic: PROBE_TOPIC, partitions: [0] }] });
      return;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await sleep(pauseMs);
    } finally {
      await reader?.close();
    }
  }
}
