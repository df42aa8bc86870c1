import type { Redis } from 'ioredis';
import type { OnRefused, RefusalReason } from '../at-rest/refusals.js';
import { openStoredValue, sealedInJson } from '../at-rest/stored-values.js';
import { subjectsOfRequest } from '../at-rest/subjects.js';
import type { AtRest } from '../config-at-rest.js';
import { EXTEND_IF_OURS, RELEASE_IF_OURS, redisScript, runScriptText } from '../redis-script.js';
import { decodeSearch, encodeSearch, type PendingSearch, type PendingStore } from './pending-store.js';

/**
 * Pending searches in Redis, shared by every replica and kept across restarts:
 *   {prefix}:searches  hash   requestId → PendingSearch (JSON)
 *   {prefix}:due       zset   requestId scored by the epoch ms of its next poll (or lease end)
 *   {prefix}:claim:<requestId>  owner token, PX ttl (SET NX): one replica works a search at once
 *   {prefix}:webhook-fetch:<requestId>  PX interval (SET NX): one webhook-driven GET per interval
 *   {prefix}:done:<requestId>   searchId of the search finished last, PX ttl
 *   {prefix}:subject:<hmac>     set of requestIds whose request key or metadata names that tax id
 *                               or plate (keyed hash, subjects.ts), PX index ttl: what erasure finds
 *   {prefix}:erasing:<hmac>     erase's marker: while it exists, no search naming that subject is
 *                               recorded (erase sets it before it reads anything)
 * With encryption at rest, a search is stored as {"searchId", "sealed": base64 AES-256-GCM of
 * its JSON}: the scripts below compare the searchId (a vendor id, not personal data) in
 * Redis, the key and metadata stay sealed. An entry this service did not seal (in clear past
 * REDIS_CLEAR_VALUES_UNTIL, sealed with other bytes, or not a search) is refused and dropped:
 * polling it would fetch, and publish, whatever search id a Redis writer put there.
 * The braces keep every key in one cluster slot, so the scripts below may touch them together.
 * Redis must not evict keys (maxmemory-policy noeviction): an evicted hash loses searches.
 */

// KEYS: searches, due, then for each subject the search names its index entry and erase's
// marker. ARGV: requestId, the entry, dueAt, index ttl ms. Records nothing (answers 0) while
// one of those subjects is being erased.
const ADD = redisScript(`
for i = 3, #KEYS, 2 do
  if redis.call('EXISTS', KEYS[i + 1]) == 1 then return 0 end
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
for i = 3, #KEYS, 2 do
  redis.call('SADD', KEYS[i], ARGV[1])
  redis.call('PEXPIRE', KEYS[i], ARGV[4])
end
return 1
`);

// KEYS: searches, due. ARGV: requestId, searchId, dueAt, search JSON.
// Only the search still recorded for the request is rescheduled: one finished or replaced
// meanwhile must not come back.
const RESCHEDULE = `
local current = redis.call('HGET', KEYS[1], ARGV[1])
if not current or cjson.decode(current).searchId ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[4])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
return 1
`;

// KEYS: due. ARGV: now, limit, lease ms.
const TAKE_DUE = `
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
local leased = tonumber(ARGV[1]) + tonumber(ARGV[3])
for _, id in ipairs(ids) do redis.call('ZADD', KEYS[1], leased, id) end
return ids
`;

// KEYS: searches, due, done. ARGV: requestId, searchId, done ttl ms.
const FINISH = `
redis.call('SET', KEYS[3], ARGV[2], 'PX', ARGV[3])
local current = redis.call('HGET', KEYS[1], ARGV[1])
if current and cjson.decode(current).searchId == ARGV[2] then
  redis.call('HDEL', KEYS[1], ARGV[1])
  redis.call('ZREM', KEYS[2], ARGV[1])
end
return 1
`;

// KEYS: searches, due. ARGV: requestId, the entry as it was read.
// Drops a refused entry, unless it was replaced meanwhile.
const DROP_IF_SAME = `
if redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[2] then return 0 end
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
return 1
`;

export interface PendingStoreAtRest {
  atRest: AtRest;
  /** Life of a subject index entry, renewed on each add: past any search's life. */
  indexTtlMs: number;
  /** An entry this service did not seal: refused and dropped, never polled nor published. */
  onRefused?: OnRefused | undefined;
  /** A search not recorded: a subject it names is being erased (it is never polled). */
  onNotStored?: (() => void) | undefined;
}

/** The Redis keys of the pending store under `keyPrefix` (the erase command reads them too). */
export function pendingKeys(keyPrefix: string): {
  searches: string;
  due: string;
  subject: (digest: string) => string;
  erasing: (digest: string) => string;
} {
  const base = `{${keyPrefix}}`;
  return {
    searches: `${base}:searches`,
    due: `${base}:due`,
    subject: (digest) => `${base}:subject:${digest}`,
    erasing: (digest) => `${base}:erasing:${digest}`,
  };
}

export function redisPendingStore(
  redis: Redis,
  keyPrefix: string,
  sealing?: PendingStoreAtRest,
): PendingStore {
  const base = `{${keyPrefix}}`;
  const { searches, due } = pendingKeys(keyPrefix);
  const doneKey = (requestId: string): string => `${base}:done:${requestId}`;
  const { encode, decode, subjectEntries } = searchCodec(keyPrefix, sealing);
  return {
    count: () => redis.zcard(due),
    async nextDue() {
      const [, score] = await redis.zrange(due, '0', '0', 'WITHSCORES');
      return score === undefined ? undefined : Number(score);
    },
    async add(search, dueAt) {
      const keys = [searches, due, ...subjectEntries(search)];
      const args = [search.requestId, encode(search), dueAt, sealing?.indexTtlMs ?? 0];
      if ((await runScriptText(redis, ADD, keys, args)) === 0) sealing?.onNotStored?.();
    },
    get: (requestId) =>
      readSearch(redis, { searches, due, decode, onRefused: sealing?.onRefused }, requestId),
    async takeDue(now, limit, leaseMs) {
      const ids: unknown = await redis.eval(TAKE_DUE, 1, due, now, limit, leaseMs);
      return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === 'string') : [];
    },
    async reschedule(search: PendingSearch, dueAt) {
      await redis.eval(
        RESCHEDULE,
        2,
        searches,
        due,
        search.requestId,
        search.searchId,
        dueAt,
        encode(search),
      );
    },
    ...claims(redis, base),
    async admitFetch(requestId, intervalMs) {
      return (await redis.set(`${base}:webhook-fetch:${requestId}`, '1', 'PX', intervalMs, 'NX')) === 'OK';
    },
    async finish(requestId, searchId, doneTtlMs) {
      await redis.eval(FINISH, 3, searches, due, doneKey(requestId), requestId, searchId, doneTtlMs);
    },
    async doneSearch(requestId) {
      return (await redis.get(doneKey(requestId))) ?? undefined;
    },
    // The connection belongs to the composition root, which closes it.
    close: () => Promise.resolve(),
  };
}

/** A search's entry; one this service did not seal is refused (reported) and dropped. */
async function readSearch(
  redis: Redis,
  store: {
    searches: string;
    due: string;
    decode: ReturnType<typeof searchCodec>['decode'];
    onRefused: OnRefused | undefined;
  },
  requestId: string,
): Promise<PendingSearch | undefined> {
  const text = await redis.hget(store.searches, requestId);
  if (text === null) return undefined;
  const read = store.decode(requestId, text);
  if ('search' in read) return read.search;
  store.onRefused?.(read.refused);
  await redis.eval(DROP_IF_SAME, 2, store.searches, store.due, requestId, text);
  return undefined;
}

/** Searches to the hash's values and back: sealed when keys are configured, in clear otherwise. */
function searchCodec(
  keyPrefix: string,
  sealing: PendingStoreAtRest | undefined,
): {
  encode: (search: PendingSearch) => string;
  decode: (requestId: string, text: string) => { search: PendingSearch } | { refused: RefusalReason };
  /** The index entry and erase's marker of each subject the search names, one after the other. */
  subjectEntries: (search: PendingSearch) => string[];
} {
  const { searches, subject, erasing } = pendingKeys(keyPrefix);
  const cipher = sealing?.atRest.cipher;
  return {
    encode: (search) =>
      cipher
        ? JSON.stringify({
            searchId: search.searchId,
            sealed: cipher.seal(encodeSearch(search), `${searches}:${search.requestId}`).toString('base64'),
          })
        : encodeSearch(search),
    decode: (requestId, text) => {
      const stored = sealedInJson(text) ?? Buffer.from(text, 'utf8');
      const opened = openStoredValue(sealing?.atRest, stored, `${searches}:${requestId}`);
      if ('refused' in opened) return opened;
      const search = decodeSearch(opened.plain.toString('utf8'));
      return search ? { search } : { refused: 'malformed' };
    },
    subjectEntries: (search) => {
      if (!sealing) return [];
      const key = search.key === null ? null : Buffer.from(search.key, 'base64');
      return subjectsOfRequest({ key, metadata: search.metadata }).flatMap((named) => {
        const digest = sealing.atRest.index.digest(named);
        return [subject(digest), erasing(digest)];
      });
    },
  };
}

/** A search's claim: one worker at a time, renewed while it works, given back by its holder only. */
function claims(redis: Redis, base: string): Pick<PendingStore, 'claim' | 'extend' | 'release'> {
  const claimKey = (requestId: string): string => `${base}:claim:${requestId}`;
  return {
    async claim(requestId, owner, ttlMs) {
      return (await redis.set(claimKey(requestId), owner, 'PX', ttlMs, 'NX')) === 'OK';
    },
    async extend(requestId, owner, ttlMs) {
      return (await runScriptText(redis, EXTEND_IF_OURS, [claimKey(requestId)], [owner, ttlMs])) === 1;
    },
    async release(requestId, owner) {
      await runScriptText(redis, RELEASE_IF_OURS, [claimKey(requestId)], [owner]);
    },
  };
}
