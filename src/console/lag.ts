import type { Admin } from 'kafkajs';
import { OPERATIONS, type TopicNames } from '../contract/operations.js';
import { readPartitionLag, type LagAdmin } from '../observability/consumer-lag.js';

/**
 * Lag per operation: end offset minus the service group's committed offset, summed over the
 * request topic's partitions. Read from the cluster, so it covers every replica at once.
 */
export async function consumerLag(
  admin: LagAdmin & Pick<Admin, 'listTopics'>,
  groupId: string,
  topics: TopicNames,
): Promise<Record<string, number>> {
  const existing = new Set(await admin.listTopics());
  const wanted = OPERATIONS.filter((op) => existing.has(topics.request(op)));
  const partitions = await readPartitionLag(
    admin,
    groupId,
    wanted.map((op) => topics.request(op)),
  );
  const lag: Record<string, number> = {};
  for (const op of wanted) {
    const topic = topics.request(op);
    lag[op] = partitions.filter((p) => p.topic === topic).reduce((sum, p) => sum + Math.max(0, p.lag), 0);
  }
  return lag;
}
