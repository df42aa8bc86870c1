import type { Admin } from 'kafkajs';
import { OPERATIONS, type TopicNames } from '../contract/operations.js';

/**
 * Lag per operation: end offset minus the service group's committed offset, summed over the
 * request topic's partitions. Read from the cluster, so it covers every replica at once.
 */
export async function consumerLag(
  admin: Pick<Admin, 'fetchOffsets' | 'fetchTopicOffsets' | 'listTopics'>,
  groupId: string,
  topics: TopicNames,
): Promise<Record<string, number>> {
  const existing = new Set(await admin.listTopics());
  const wanted = OPERATIONS.filter((op) => existing.has(topics.request(op)));
  const committed = await admin.fetchOffsets({ groupId, topics: wanted.map((op) => topics.request(op)) });
  const lag: Record<string, number> = {};
  await Promise.all(
    wanted.map(async (op) => {
      const topic = topics.request(op);
      const ends = await admin.fetchTopicOffsets(topic);
      const done = new Map(
        (committed.find((c) => c.topic === topic)?.partitions ?? []).map((p) => [
          p.partition,
          Number(p.offset),
        ]),
      );
      lag[op] = ends.reduce((sum, e) => {
        const at = done.get(e.partition) ?? -1;
        // -1: nothing committed yet; everything from the low watermark is still to do.
        const from = at < 0 ? Number(e.low) : at;
        return sum + Math.max(0, Number(e.high) - from);
      }, 0);
    }),
  );
  return lag;
}
