import { randomUUID } from 'node:crypto';
import type { Admin } from 'kafkajs';

/**
 * The consumer group a replay reads through. kafkajs 2.x has no manual partition assignment
 * (tulios/kafkajs#373 is open, the draft #1429 never shipped): every consumer joins a group.
 * So each read joins a group of its own, named with a random suffix, whose only member gets
 * every partition; it never commits (autoCommit off, commit never called: in kafkajs 2.2.4
 * every commit path — runner.autoCommitOffsets*, offsetManager.seek — checks autoCommit, and
 * disconnect only sends LeaveGroup). Afterwards it checks that the group holds no offsets and
 * deletes it, so nothing of the replay stays on the cluster. The service's group is never
 * joined: the id cannot collide with KAFKA_GROUP_ID.
 */
export function throwawayGroupId(clientId: string, serviceGroupId: string): string {
  const id = `${clientId}.audit.${randomUUID()}`;
  if (id === serviceGroupId) throw new Error('the audit group id collides with the service group');
  return id;
}

export type GroupAdmin = Pick<Admin, 'fetchOffsets' | 'deleteGroups'>;

/** Partitions for which the group holds a committed offset (expected: none). */
export async function committedOffsets(
  admin: GroupAdmin,
  groupId: string,
  topics: readonly string[],
): Promise<{ topic: string; partition: number; offset: string }[]> {
  const offsets = await admin.fetchOffsets({ groupId, topics: [...topics] });
  return offsets.flatMap(({ topic, partitions }) =>
    partitions
      .filter((p) => Number(p.offset) >= 0)
      .map((p) => ({ topic, partition: p.partition, offset: p.offset })),
  );
}

/** Deletes the group; one that the broker already dropped (no offsets, no members) is fine. */
export async function deleteGroup(admin: GroupAdmin, groupId: string): Promise<void> {
  try {
    await admin.deleteGroups([groupId]);
  } catch (error) {
    const groups = (error as { groups?: { errorCode?: number }[] }).groups ?? [];
    const GROUP_ID_NOT_FOUND = 69;
    if (groups.length > 0 && groups.every((g) => g.errorCode === GROUP_ID_NOT_FOUND)) return;
    throw error;
  }
}
