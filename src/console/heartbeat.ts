import type { Redis } from 'ioredis';
import { z } from 'zod';
import type { OnRefused, RefusalReason } from '../at-rest/refusals.js';
import { openStoredValue, sealedInJson, type StoredValue } from '../at-rest/stored-values.js';
import type { AtRest } from '../config-at-rest.js';
import type { ReplicaFigures, StatusSource } from './status.js';

/**
 * Replicas' figures through Redis: each writes its own field of one hash every few seconds, the
 * console reads the hash. Redis rather than a compacted topic: every replica already talks to
 * it, and reading the latest figures is one HGETALL instead of a consumer reading the topic from
 * its start on every page load. One hash rather than a key per replica found by SCAN: SCAN walks
 * the whole keyspace, which the idempotency store fills with millions of keys (a shared Redis
 * holding 1.4M made each status sample take longer than its interval). A replica that stopped
 * beating is left out by the age of its figures, and its field deleted; the hash itself expires
 * once no replica beats. With encryption at rest each field is sealed, bound to its field
 * (`{"sealed": base64}`), and one this service did not seal is refused: the page shows only
 * what replicas wrote.
 */
export const HEARTBEAT_INTERVAL_MS = 2_000;
const TTL_SECONDS = 10;

export function heartbeatsKey(prefix: string): string {
  return `${prefix}:console:heartbeats`;
}

/** Writes this replica's figures now and every HEARTBEAT_INTERVAL_MS; the returned stop removes them. */
export function startHeartbeat(
  redis: Redis,
  prefix: string,
  figures: () => ReplicaFigures,
  onError: (error: unknown) => void,
  atRest?: AtRest,
): () => Promise<void> {
  const key = heartbeatsKey(prefix);
  const beat = (): void => {
    const f = figures();
    const json = JSON.stringify(f);
    const value = atRest
      ? JSON.stringify({ sealed: atRest.cipher.seal(json, fieldContext(key, f.replica)).toString('base64') })
      : json;
    redis.multi().hset(key, f.replica, value).expire(key, TTL_SECONDS).exec().catch(onError);
  };
  beat();
  const timer = setInterval(beat, HEARTBEAT_INTERVAL_MS);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await redis.hdel(key, figures().replica).catch(onError);
  };
}

const laneFiguresSchema = z.object({ calls: z.number(), queued: z.number(), oldestWaitMs: z.number() });

/** The figures a replica writes (status.ts), as the page sums them: one field of another shape is refused. */
const replicaFiguresSchema = z.object({
  replica: z.string(),
  at: z.number(),
  operations: z.record(
    z.string(),
    z.object({
      calls: z.number(),
      inFlight: z.number().nullable(),
      breaker: z.string(),
      ratePerSecond: z.number(),
      spendCapPerHour: z.number().nullable(),
      callsThisHour: z.number(),
      deadLetters: z.record(z.string(), z.number()),
      paused: z.array(z.string()),
      hanging: z.array(z.string()).optional(),
      lanes: z.record(z.string(), laneFiguresSchema).optional(),
    }),
  ),
});

/** What a field's seal is bound to: the hash and the field (figures moved to another field do not open). */
function fieldContext(key: string, replica: string): string {
  return `${key}:${replica}`;
}

export interface RedisStatusOptions {
  now?: () => number;
  /** Fields are sealed with these keys (absent: ALLOW_PLAINTEXT_REDIS, fields in clear). */
  atRest?: AtRest | undefined;
  /** A field that is not figures this service sealed and wrote: skipped (and dropped), the page renders. */
  onRefused?: OnRefused;
}

/**
 * Every live replica's figures, from the hash. Figures older than the TTL are dropped, and so is
 * a field that does not hold figures (a bug of another version, or a write to Redis not ours):
 * one such field must not take the page down for everyone.
 */
export function redisStatusSource(
  redis: Redis,
  prefix: string,
  lag: StatusSource['lag'],
  options: RedisStatusOptions = {},
): StatusSource {
  const key = heartbeatsKey(prefix);
  const now = options.now ?? Date.now;
  return {
    lag,
    async replicas() {
      const fields = await redis.hgetall(key);
      const live: ReplicaFigures[] = [];
      const dropped: string[] = [];
      for (const [replica, value] of Object.entries(fields)) {
        const read = readFigures(value, fieldContext(key, replica), options.atRest);
        if ('refused' in read) options.onRefused?.(read.refused);
        if ('figures' in read && read.figures.at >= now() - TTL_SECONDS * 1000) live.push(read.figures);
        else dropped.push(replica);
      }
      if (dropped.length > 0) await redis.hdel(key, ...dropped).catch(() => undefined);
      return live;
    },
  };
}

function readFigures(
  value: string,
  context: string,
  atRest: AtRest | undefined,
): { figures: ReplicaFigures } | { refused: RefusalReason } {
  let opened: StoredValue;
  try {
    opened = openStoredValue(atRest, sealedInJson(value) ?? Buffer.from(value, 'utf8'), context);
  } catch {
    // A key id the ring does not list, or a sealed field without keys: not figures to show.
    return { refused: 'unopenable' };
  }
  if ('refused' in opened) return opened;
  let parsed: unknown;
  try {
    parsed = JSON.parse(opened.plain.toString('utf8'));
  } catch {
    return { refused: 'malformed' };
  }
  const figures = replicaFiguresSchema.safeParse(parsed);
  return figures.success ? { figures: figures.data } : { refused: 'malformed' };
}

export function localStatusSource(figures: () => ReplicaFigures, lag: StatusSource['lag']): StatusSource {
  return { replicas: () => Promise.resolve([figures()]), lag };
}
