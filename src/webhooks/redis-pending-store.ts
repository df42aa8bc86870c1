import type { Redis } from 'ioredis';
import { EXTEND_IF_OURS, RELEASE_IF_OURS, runScriptText } from '../redis-script.js';
import { decodeSearch, encodeSearch, type PendingSearch, type PendingStore } from './pending-store.js';

/**
 * Pending searches in Redis, shared by every replica and kept across restarts:
 *   {prefix}:searches  hash   requestId → PendingSearch (JSON)
 *   {prefix}:due       zset   requestId scored by the epoch ms of its next poll (or lease end)
 *   {prefix}:claim:<requestId>  owner token, PX ttl (SET NX): one replica works a search at once
 *   {prefix}:webhook-fetch:<requestId>  PX interval (SET NX): one webhook-driven GET per interval
 *   {prefix}:done:<requestId>   searchId of the search finished last, PX ttl
 * The braces keep every key in one cluster slot, so the scripts below may touch them together.
 * Redis must not evict keys (maxmemory-policy noeviction): an evicted hash loses searches.
 */

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

export function redisPendingStore(redis: Redis, keyPrefix: string): PendingStore {
  const base = `{${keyPrefix}}`;
  const searches = `${base}:searches`;
  const due = `${base}:due`;
  const doneKey = (requestId: string): string => `${base}:done:${requestId}`;
  return {
    count: () => redis.zcard(due),
    async nextDue() {
      const [, score] = await redis.zrange(due, '0', '0', 'WITHSCORES');
      return score === undefined ? undefined : Number(score);
    },
    async add(search, dueAt) {
      const replies = await redis
        .multi()
        .hset(searches, search.requestId, encodeSearch(search))
        .zadd(due, dueAt, search.requestId)
        .exec();
      // MULTI reports a failed command in its reply instead of throwing.
      const failed = replies?.find(([error]) => error !== null)?.[0];
      if (failed) throw failed;
      if (!replies) throw new Error('pending search not recorded: transaction aborted');
    },
    async get(requestId) {
      const text = await redis.hget(searches, requestId);
      return text === null ? undefined : decodeSearch(text);
    },
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
        encodeSearch(search),
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
