import type { OffsetsAdmin } from '../kafka/client.js';
import type { Origin } from '../contract/envelopes.js';

/**
 * Whether the consumer group has committed past a request message. The runtime commits a
 * request's offset in the transaction that writes its outputs (for vehicle-async, the
 * `pending` event), so a committed offset greater than the request's proves those outputs
 * visible to read_committed readers. Once proven this stays true, so the highest offset seen
 * per partition answers later questions without asking the broker again.
 */
export function requestCommitCheck(
  admin: OffsetsAdmin,
  groupId: string,
): (origin: Origin) => Promise<boolean> {
  const seen = new Map<string, bigint>();
  const slot = (topic: string, partition: number): string => `${topic}\u0000${String(partition)}`;
  const committedPast = (origin: Origin): boolean =>
    (seen.get(slot(origin.topic, origin.partition)) ?? -1n) > BigInt(origin.offset);
  return async (origin) => {
    if (committedPast(origin)) return true;
    const [offsets] = await admin.fetchOffsets({ groupId, topics: [origin.topic] });
    for (const { partition, offset } of offsets?.partitions ?? []) {
      // Negative (librdkafka's -1001): nothing committed yet for the partition.
      if (!/^\d+$/.test(offset)) continue;
      const committed = BigInt(offset);
      const key = slot(origin.topic, partition);
      if (committed > (seen.get(key) ?? -1n)) seen.set(key, committed);
    }
    return committedPast(origin);
  };
}
