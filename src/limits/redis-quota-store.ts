import type { Redis } from 'ioredis';
import { redisScript, runScriptText, ScriptBatch } from '../redis-script.js';
import { createClockOffset } from './clock-offset.js';
import {
  LOG_SLACK,
  RELEASE_DEPTH,
  type Admission,
  type QuotaSettings,
  type QuotaStore,
} from './quota-store.js';
import { HOUR_MS } from './settings.js';

/*
 * Why a hand-written script and not a library (bench/limits.ts, 2 replicas on 2 Redis
 * connections, 300/s shared, 5 s of saturating demand; achieved/limit, most calls in a sliding
 * second, in a clock-aligned second; two runs on a 2-core machine):
 *   bottleneck ioredis, minTime          1.001 / 305 / 300    (other run: 0.999 / 313 / 300)
 *   bottleneck ioredis, reservoir 300/1s 0.20  / 300 / 300    (refills never reach the queue)
 *   rate-limiter-flexible Redis 1s+queue 1.00  / 369 / 365    (fixed window: bursts at edges)
 *   rate-limiter-flexible 1s, execEvenly 1.00  / 302 / 300    (other run: 311 / 304)
 * RateLimiterRedis cannot use a window under one second (its TTL is whole seconds), so no
 * library setting reaches "no sliding second over the limit". Our figures are in the
 * bench file's header.
 *
 * Each reservation atomically takes the slot
 * `max(now, tat - burst, latest + burstSpacing, the perWindow-th latest + window)`, moves the
 * GCRA's theoretical arrival time to `max(slot, tat) + spacing`, and pushes the slot onto a list
 * of the latest slots; `now` comes from Redis TIME so replica clocks do not matter, and the
 * caller sleeps until its slot (QuotaSettings says why both rules). A backoff key (PX) and an
 * hourly spend counter are checked first. The keys of one operation share a hash tag, so the
 * scripts also run on Redis Cluster. The tat key is the one the pure-GCRA script of earlier
 * versions kept, with the same meaning: during a rolling upgrade both keep one pace.
 */

// KEYS: log, tat, backoff, spend. ARGV: per window, window µs, spacing µs, burst µs,
// burst spacing µs, slots kept, spend cap (0 = none), hour ms.
const RESERVE = redisScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local backoff = redis.call('PTTL', KEYS[3])
if backoff > 0 then return {1, backoff} end
local cap = tonumber(ARGV[7])
local hourMs = tonumber(ARGV[8])
local hour = math.floor(now / (hourMs * 1000))
local count = 0
if cap > 0 then
  local stored = redis.call('HMGET', KEYS[4], 'w', 'n')
  if tonumber(stored[1]) == hour then count = tonumber(stored[2]) or 0 end
  if count >= cap then
    local resumeAt = (hour + 1) * hourMs
    return {2, math.ceil(resumeAt - now / 1000), count, resumeAt}
  end
end
local windowUs = tonumber(ARGV[2])
local tat = tonumber(redis.call('GET', KEYS[2]) or '0')
local start = math.max(now, tat - tonumber(ARGV[4]))
local latest = redis.call('LINDEX', KEYS[1], 0)
if latest then start = math.max(start, tonumber(latest) + tonumber(ARGV[5])) end
local nth = redis.call('LINDEX', KEYS[1], tonumber(ARGV[1]) - 1)
if nth then start = math.max(start, tonumber(nth) + windowUs) end
local slot = string.format('%.0f', start)
local nextTat = string.format('%.0f', math.max(start, tat) + tonumber(ARGV[3]))
local ttl = math.ceil((tonumber(nextTat) - now + windowUs) / 1000) + 1000
redis.call('SET', KEYS[2], nextTat, 'PX', ttl)
redis.call('LPUSH', KEYS[1], slot)
redis.call('LTRIM', KEYS[1], 0, tonumber(ARGV[6]) - 1)
redis.call('PEXPIRE', KEYS[1], ttl)
if cap > 0 then
  count = count + 1
  redis.call('HSET', KEYS[4], 'w', hour, 'n', count)
  redis.call('PEXPIRE', KEYS[4], hourMs * 2)
end
return {0, start - now, slot, count, hour, nextTat}
`);

// KEYS: log, tat, spend. ARGV: the reservation's slot, its tat, its hour, counted (1/0),
// spacing µs, release depth. The pace is worked out again over the slots taken after the
// released one, as releasedPace (quota-store.ts) does.
const RELEASE = redisScript(`
local pos = redis.call('LPOS', KEYS[1], ARGV[1])
if pos then
  redis.call('LREM', KEYS[1], 1, ARGV[1])
  if pos <= tonumber(ARGV[6]) then
    local spacing = tonumber(ARGV[5])
    local tat = tonumber(ARGV[2]) - spacing
    if pos > 0 then
      local later = redis.call('LRANGE', KEYS[1], 0, pos - 1)
      for i = #later, 1, -1 do tat = math.max(tonumber(later[i]), tat) + spacing end
    end
    local current = redis.call('GET', KEYS[2])
    if current and tat < tonumber(current) then
      redis.call('SET', KEYS[2], string.format('%.0f', tat), 'KEEPTTL')
    end
  end
end
if ARGV[4] == '1' then
  local stored = redis.call('HMGET', KEYS[3], 'w', 'n')
  if tonumber(stored[1]) == tonumber(ARGV[3]) and (tonumber(stored[2]) or 0) > 0 then
    redis.call('HINCRBY', KEYS[3], 'n', -1)
  end
end
return 0
`);

// KEYS: backoff. ARGV: ms. Only ever lengthens a running backoff.
const BACKOFF = redisScript(`
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[1]) then
  redis.call('SET', KEYS[1], '1', 'PX', ARGV[1])
end
return redis.call('PTTL', KEYS[1])
`);

function field(reply: unknown, index: number): number {
  const value: unknown = Array.isArray(reply) ? reply[index] : undefined;
  const parsed = typeof value === 'number' ? value : Number(value);
  if (!Number.isFinite(parsed)) throw new Error(`unexpected quota script reply at ${index}`);
  return parsed;
}

function text(reply: unknown, index: number): string {
  const value: unknown = Array.isArray(reply) ? reply[index] : undefined;
  if (typeof value !== 'string') throw new Error(`unexpected quota script reply at ${index}`);
  return value;
}

export interface RedisQuotaStoreOptions extends QuotaSettings {
  redis: Redis;
  /** Unique per operation and deployment; replicas sharing it share the quota. */
  key: string;
  /** This process's clock (ms), the one the limiter sleeps on. */
  now: () => number;
}

const micros = (ms: number): number => Math.ceil(ms * 1000);

/** RESERVE's first arguments: per window, window µs, spacing µs, burst µs, burst spacing µs, kept. */
function scriptShape(settings: QuotaSettings): number[] {
  return [
    settings.perWindow,
    micros(settings.windowMs),
    micros(settings.spacingMs),
    micros(settings.burstMs),
    micros(settings.burstSpacingMs),
    settings.perWindow + LOG_SLACK,
  ];
}

export function createRedisQuotaStore(options: RedisQuotaStoreOptions): QuotaStore {
  const { redis } = options;
  const tag = `{${options.key}}`;
  const keys = { log: `${tag}:log`, tat: `${tag}:tat`, backoff: `${tag}:backoff`, spend: `${tag}:spend` };
  const spacingUs = micros(options.spacingMs);
  const shape = scriptShape(options);
  const cap = options.spendCapPerHour ?? 0;
  const clock = createClockOffset();
  // The calls of a group of jobs starting together ask for their slots in one script run, one
  // slot after another as separate reservations would take them.
  const reservations = new ScriptBatch((lua, k, a) => runScriptText(redis, lua, k, a), RESERVE, {
    keys: 4,
    args: 8,
    flushOn: 'tick',
  });

  return {
    async reserve(): Promise<Admission> {
      const sentAt = options.now();
      const reply = await reservations.run(
        [keys.log, keys.tat, keys.backoff, keys.spend],
        [...shape, cap, HOUR_MS],
      );
      const code = field(reply, 0);
      if (code === 1) return { kind: 'backoff', waitMs: field(reply, 1) };
      if (code === 2) {
        return {
          kind: 'spend-cap',
          waitMs: field(reply, 1),
          started: field(reply, 2),
          resumeAt: field(reply, 3),
        };
      }
      const token = { slot: text(reply, 2), tat: text(reply, 5), window: field(reply, 4) };
      // The slot on Redis's clock, then on ours: a sleep counted from when the answer was read
      // would start late by however long the answer waited for a busy event loop, unnoticed,
      // and such hidden lateness bunched calls past the limit.
      const waitMs = field(reply, 1) / 1000;
      const slotUs = Number(token.slot);
      const answeredAt = options.now();
      clock.sample(sentAt, answeredAt, slotUs / 1000 - waitMs);
      // The script ran between the send and the answer, so the slot lies `waitMs` after some
      // moment between them; the estimate is kept within that. Left alone, an estimate off by
      // a fraction of a millisecond (clocks drift between samples) put free slots (wait 0) in
      // the future: most calls at half the limit slept a timer's 1 ms for nothing.
      const estimate = slotUs / 1000 + clock.offsetMs;
      return {
        kind: 'slot',
        waitMs,
        dueAt: Math.min(Math.max(estimate, sentAt + waitMs), answeredAt + waitMs),
        token,
        started: cap > 0 ? field(reply, 3) : undefined,
      };
    },
    async release(token) {
      await runScriptText(
        redis,
        RELEASE,
        [keys.log, keys.tat, keys.spend],
        [token.slot, token.tat, token.window, cap > 0 ? 1 : 0, spacingUs, RELEASE_DEPTH],
      );
    },
    async backoff(ms) {
      await runScriptText(redis, BACKOFF, [keys.backoff], [Math.max(1, Math.ceil(ms))]);
    },
    async backoffRemaining() {
      return Math.max(0, await redis.pttl(keys.backoff));
    },
  };
}
