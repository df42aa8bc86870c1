import { randomUUID } from 'node:crypto';
import { KafkaJS } from '@confluentinc/kafka-javascript';
import type { KafkaConsumer } from '@confluentinc/kafka-javascript';
import { committedOf, type Admin } from '../kafka/client.js';

/**
 * The group id a replay's consumer is configured with. The consumer is assigned its partitions
 * (audit/reader.ts): it joins no group and commits nothing (auto commit and offset store off),
 * but librdkafka wants a group id all the same. A random one of its own, so that even a
 * mistake could never touch the service's group (the id cannot collide with KAFKA_GROUP_ID).
 * Afterwards the reader checks that the group holds no offsets and deletes it if the broker
 * knows it, so nothing of the replay stays on the cluster.
 */
export function throwawayGroupId(clientId: string, serviceGroupId: string): string {
  const id = `${clientId}.audit.${randomUUID()}`;
  if (id === serviceGroupId) throw new Error('the audit group id collides with the service group');
  return id;
}

export type GroupAdmin = Pick<Admin, 'deleteGroups'>;

/**
 * Partitions for which the group holds a committed offset (expected: none), asked by the
 * throwaway consumer itself (librdkafka's committed(), OffsetFetch under its own group id) before
 * it disconnects: the admin client's fetchOffsets can crash the process (src/kafka/client.ts).
 */
export async function committedOffsets(
  consumer: Pick<KafkaConsumer, 'committed'>,
  partitions: readonly { topic: string; partition: number }[],
  timeoutMs: number,
): Promise<{ topic: string; partition: number; offset: string }[]> {
  const read = await committedOf(
    consumer,
    partitions.map(({ topic, partition }) => ({ topic, partition })),
    timeoutMs,
  );
  return read
    .filter((p) => p.offset !== undefined && p.offset >= 0)
    .map(({ topic, partition, offset }) => ({ topic, partition, offset: String(offset) }));
}

/** Deletes the group; one the broker never knew or already dropped (no offsets, no members) is fine. */
export async function deleteGroup(admin: GroupAdmin, groupId: string): Promise<void> {
  try {
    await admin.deleteGroups([groupId]);
  } catch (error) {
    // The client fails the call with each group's own error listed.
    const groups = (error as { groups?: { errorCode?: unknown; error?: unknown }[] }).groups ?? [];
    const notFound = (g: { errorCode?: unknown; error?: unknown }): boolean =>
      g.errorCode === KafkaJS.ErrorCodes.ERR_GROUP_ID_NOT_FOUND || isGroupNotFound(g.error);
    if (groups.length > 0 && groups.every(notFound)) return;
    throw error;
  }
}

function isGroupNotFound(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === KafkaJS.ErrorCodes.ERR_GROUP_ID_NOT_FOUND;
}
