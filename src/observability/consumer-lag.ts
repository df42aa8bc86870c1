import type { OffsetsAdmin, TopicPartitionEnds } from '../kafka/client.js';
import type { Logger } from 'pino';

/**
 * Consumer lag per request partition: log end offset minus the group's committed offset,
 * read from the brokers every `intervalMs` rather than at scrape time, so that a scrape never
 * waits on Kafka.
 */
/**
 * What the lag is read with (the lag watch's and the console's): the service's group offsets
 * reader (src/kafka/client.ts), whose requests go to any broker that is up and to partition
 * leaders, never to the controller.
 */
export interface LagAdmin extends OffsetsAdmin {
  fetchTopicOffsets(topic: string): Promise<TopicPartitionEnds[]>;
}

export interface LagWatchDeps {
  admin: LagAdmin;
  groupId: string;
  topics: readonly string[];
  intervalMs: number;
  logger: Logger;
  report(topic: string, partition: number, lag: number): void;
}

/** One partition's lag: log end offset minus the group's committed offset. */
export interface PartitionLag {
  topic: string;
  partition: number;
  lag: number;
}

/**
 * Reads the lag of every partition of `topics` for `groupId`: each topic's ends (the client asks
 * their leaders for the low and high watermarks of a topic's partitions together), one topic
 * after the other, then one offsets request for the group's partitions so found. One request at
 * a time: each is a native call that holds a thread of libuv's pool until it is answered or
 * times out, and twenty of them at once, waiting on a dead broker, once took the whole pool.
 */
export async function readPartitionLag(
  admin: LagAdmin,
  groupId: string,
  topics: readonly string[],
): Promise<PartitionLag[]> {
  const lags: PartitionLag[] = [];
  if (topics.length === 0) return lags;
  const ends: { topic: string; partitions: TopicPartitionEnds[] }[] = [];
  for (const topic of topics) ends.push({ topic, partitions: await admin.fetchTopicOffsets(topic) });
  const committed = await admin.fetchOffsets({
    groupId,
    topics: ends.map(({ topic, partitions }) => ({ topic, partitions: partitions.map((p) => p.partition) })),
  });
  const committedByTopic = new Map(committed.map(({ topic, partitions }) => [topic, partitions]));
  for (const { topic, partitions } of ends) {
    for (const end of partitions) {
      const offset = committedByTopic.get(topic)?.find((p) => p.partition === end.partition)?.offset;
      // No committed offset yet (none listed, or librdkafka's -1001): the whole partition, from
      // its low watermark, is behind.
      const from = offset === undefined || BigInt(offset) < 0n ? BigInt(end.low) : BigInt(offset);
      lags.push({ topic, partition: end.partition, lag: Number(BigInt(end.high) - from) });
    }
  }
  return lags;
}

export function watchConsumerLag(deps: LagWatchDeps): { refresh(): Promise<void>; stop(): void } {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  async function refresh(): Promise<void> {
    for (const { topic, partition, lag } of await readPartitionLag(deps.admin, deps.groupId, deps.topics))
      deps.report(topic, partition, lag);
  }
  function loop(): void {
    timer = setTimeout(() => {
      refresh()
        .catch((error: unknown) => {
          deps.logger.debug({ err: error }, 'could not read the consumer lag');
        })
        .finally(() => {
          if (!stopped) loop();
        });
    }, deps.intervalMs);
    timer.unref();
  }
  loop();
  return {
    refresh,
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
