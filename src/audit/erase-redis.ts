import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { EXTEND_IF_OURS, RELEASE_IF_OURS, redisScript, runScriptText } from '../redis-script.js';
import { paidErasingKey, paidSubjectKey, requestKeys } from '../requests/idempotency.js';
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
    /** The paid outcome of a requestId is this followed by the requestId. */
    paidPrefix: requestKeys(idempotency, '').paid,
    searches: pending.searches,
    due: pending.due,
    markers: [paidErasingKey(idempotency, digest), pending.erasing(digest)],
  };
}

// KEYS: the paid index, the pending index, the searches hash, the due set. ARGV: `erase` or
// `count`, the paid outcomes' key prefix, then requestIds found elsewhere (Kafka). Those and
// the requestIds of both index entries: those whose paid outcome or pending search is stored,
// and with `erase` those values and both entries removed, in one step (a value stored and
// indexed meanwhile is either read here or stored after it). Answers { paid requestIds,
// pending requestIds }.
const FIND_OR_ERASE = redisScript(`
local seen, ids = {}, {}
local function add(id)
  if not seen[id] then seen[id] = true ids[#ids + 1] = id end
end
for k = 1, 2 do
  for _, id in ipairs(redis.call('SMEMBERS', KEYS[k])) do add(id) end
end
for i = 3, #ARGV do add(ARGV[i]) end
local erase = ARGV[1] == 'erase'
local paid, pending = {}, {}
for _, id in ipairs(ids) do
  local key = ARGV[2] .. id
  if redis.call('EXISTS', key) == 1 then
    paid[#paid + 1] = id
    if erase then redis.call('DEL', key) end
  end
  if redis.call('HEXISTS', KEYS[3], id) == 1 then
    pending[#pending + 1] = id
    if erase then
      redis.call('HDEL', KEYS[3], id)
      redis.call('ZREM', KEYS[4], id)
    end
  end
end
if erase then redis.call('DEL', KEYS[1], KEYS[2]) end
return { paid, pending }
`);

async function findOrErase(
  redis: Redis,
  topicPrefix: string,
  found: { digest: string; requestIds: readonly string[] },
  mode: 'count' | 'erase',
): Promise<SubjectData> {
  const keys = names(topicPrefix, found.digest);
  const reply = await runScriptText(
    redis,
    FIND_OR_ERASE,
    [keys.paidIndex, keys.pendingIndex, keys.searches, keys.due],
    [mode, keys.paidPrefix, ...found.requestIds],
  );
  const lists: unknown[] = Array.isArray(reply) ? reply : [];
  return { paidOutcomes: idsOf(lists[0]), pendingSearches: idsOf(lists[1]) };
}

function idsOf(reply: unknown): string[] {
  return Array.isArray(reply) ? reply.filter((id): id is string => typeof id === 'string').sort() : [];
}

/**
 * What Redis holds of the subject now: the values its index entries list (by `digest`), and
 * those of `requestIds` (the requests of Kafka messages that hold the subject's identifier).
 */
export function findSubjectData(
  redis: Redis,
  topicPrefix: string,
  found: { digest: string; requestIds: readonly string[] },
): Promise<SubjectData> {
  return findOrErase(redis, topicPrefix, found, 'count');
}

/**
 * Removes those values and the subject's index entries in one step, and answers what it
 * removed. A request redelivered afterwards is paid again (its outcome is gone); a pending
 * search erased gets no final event.
 */
export function eraseSubjectData(
  redis: Redis,
  topicPrefix: string,
  found: { digest: string; requestIds: readonly string[] },
): Promise<SubjectData> {
  return findOrErase(redis, topicPrefix, found, 'erase');
}

/** Life of erase's marker without a renewal: a crashed erase holds back no store for long. */
export const ERASING_MARKER_TTL_MS = 30_000;

/**
 * Marks the subject as being erased: while the marker lives, the stores store no value of a
 * request naming it (idempotency.ts, redis-pending-store.ts), so that nothing of the person is
 * written between the erase's reads and its removal. Renewed while the erase runs; the
 * returned function removes it (only this run's marker).
 */
export async function markErasing(
  redis: Redis,
  topicPrefix: string,
  digest: string,
  ttlMs = ERASING_MARKER_TTL_MS,
): Promise<() => Promise<void>> {
  const { markers } = names(topicPrefix, digest);
  const token = randomUUID();
  const transaction = redis.multi();
  for (const marker of markers) transaction.set(marker, token, 'PX', ttlMs);
  const replies = await transaction.exec();
  const failed = replies?.find(([error]) => error !== null)?.[0];
  if (failed) throw failed;
  if (!replies) throw new Error('erase not marked: transaction aborted');
  const renew = setInterval(() => {
    for (const marker of markers)
      runScriptText(redis, EXTEND_IF_OURS, [marker], [token, ttlMs]).catch(() => undefined);
  }, ttlMs / 3);
  renew.unref();
  return async () => {
    clearInterval(renew);
    for (const marker of markers) await runScriptText(redis, RELEASE_IF_OURS, [marker], [token]);
  };
}
