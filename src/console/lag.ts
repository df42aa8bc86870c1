import type { Admin } from '../kafka/client.js';
import { LANES, OPERATIONS, type Operation, type TopicNames } from '../contract/operations.js';
import { readPartitionLag, type LagAdmin } from '../observability/consumer-lag.js';

/**
 * Lag per operation: end offset minus the service group's committed offset, summed over the
 * partitions of its request topics (both lanes). Read from the cluster, so it covers every replica at once.
 */
export async function consumerLag(
  admin: LagAdmin & Pick<Admin, 'listTopics'>,
  groupId: string,
  topics: TopicNames,
): Promise<Record<string, number>> {
  const existing = new Set(await admin.listTopics());
  const wanted = OPERATIONS.filter((op) => existing.has(topics.request(op)));
  const laneTopics = (op: Operation): string[] =>
    LANES.map((lane) => topics.request(op, lane)).filter((topic) => existing.has(topic));
  const partitions = await readPartitionLag(admin, groupId, wanted.flatMap(laneTopics));
  const lag: Record<string, number> = {};
  for (const op of wanted) {
    const own = new Set(laneTopics(op));
    lag[op] = partitions.filter((p) => own.has(p.topic)).reduce((sum, p) => sum + Math.max(0, p.lag), 0);
  }
  return lag;
}
