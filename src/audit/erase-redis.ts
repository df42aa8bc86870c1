import type { Redis } from 'ioredis';
import { paidSubjectKey, requestKeys } from '../requests/idempotency.js';
import { pendingKeys } from '../webhooks/redis-pending-store.js';

/**
 * A data subject's values in Redis, found by the keyed hash of their tax id or plate (the
 * subject index the stores write beside each value) and removed on request. The values are
 * never opened: finding and deleting need neither the encryption keys nor the identifier.
 */
export interface SubjectData {
  /** requestIds whose paid outcome is still stored. */
  paidOutcomes: string[];
  /** requestIds whose vehicle search is still pending. */
  pendingSearches: string[];
}

/** The Redis key names the service uses under `topicPrefix` (service/settings.ts, vehicle-search.ts). */
function names(topicPrefix: string, digest: string) {
  const idempotency = `${topicPrefix}:idempotency`;
  const pending = pendingKeys(`${topicPrefix}:vehicle-search`);
  return {
    paidIndex: paidSubjectKey(idempotency, digest),
    pendingIndex: pending.subject(digest),
    paid: (requestId: string) => requestKeys(idempotency, requestId).paid,
    searches: pending.searches,
    due: pending.due,
  };
}

export async function findSubjectData(
  redis: Redis,
  topicPrefix: string,
  digest: string,
): Promise<SubjectData> {
  const keys = names(topicPrefix, digest);
  const paidIds = (await redis.smembers(keys.paidIndex)).sort();
  const pendingIds = [...new Set([...(await redis.smembers(keys.pendingIndex)), ...paidIds])].sort();
  const paidOutcomes: string[] = [];
  for (const id of paidIds) if ((await redis.exists(keys.paid(id))) === 1) paidOutcomes.push(id);
  const pendingSearches: string[] = [];
  for (const id of pendingIds) if ((await redis.hexists(keys.searches, id)) === 1) pendingSearches.push(id);
  return { paidOutcomes, pendingSearches };
}

/**
 * Removes what `found` lists, and the subject's index entries, in one transaction. A request
 * redelivered afterwards is paid again (its outcome is gone); a pending search erased gets no
 * final event.
 */
export async function eraseSubjectData(
  redis: Redis,
  topicPrefix: string,
  digest: string,
  found: SubjectData,
): Promise<void> {
  const keys = names(topicPrefix, digest);
  const transaction = redis.multi();
  for (const id of found.paidOutcomes) transaction.del(keys.paid(id));
  if (found.pendingSearches.length > 0) {
    transaction.hdel(keys.searches, ...found.pendingSearches);
    transaction.zrem(keys.due, ...found.pendingSearches);
  }
  transaction.del(keys.paidIndex, keys.pendingIndex);
  const replies = await transaction.exec();
  const failed = replies?.find(([error]) => error !== null)?.[0];
  if (failed) throw failed;
  if (!replies) throw new Error('erase not applied: transaction aborted');
}
