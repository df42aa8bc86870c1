import type { Redis } from 'ioredis';
import { z } from 'zod';
import type { OnRefused } from '../at-rest/refusals.js';
import type { ReplicaFigures, StatusSource } from './status.js';

/**
 * Replicas' figures through Redis: each writes its own field of one hash every few seconds, the
 * console reads the hash. Redis rather than a compacted topic: every replica already talks to
 * it, and reading the latest figures is one HGETALL instead of a consumer reading the topic from
 * its start on every page load. One hash rather than a key per replica found by SCAN: SCAN walks
 * the whole keyspace, which the idempotency store fills with millions of keys (a shared Redis
 * holding 1.4M made each status sample take longer than its interval). A replica that stopped
 * beating is left out by the age of its figures, and its field deleted; the hash itself expires
 * once no replica beats.
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
): () => Promise<void> {
  const key = heartbeatsKey(prefix);
  const beat = (): void => {
    const f = figures();
    redis.multi().hset(key, f.replica, JSON.stringify(f)).expire(key, TTL_SECONDS).exec().catch(onError);
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

export interface RedisStatusOptions {
  now?: () => number;
  /** A field that is not figures this service writes: skipped (and dropped), the page renders. */
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
        const figures = readFigures(value);
        if (figures === undefined) options.onRefused?.('malformed');
        if (figures !== undefined && figures.at >= now() - TTL_SECONDS * 1000) live.push(figures);
        else dropped.push(replica);
      }
      if (dropped.length > 0) await redis.hdel(key, ...dropped).catch(() => undefined);
      return live;
    },
  };
}

function readFigures(value: string): ReplicaFigures | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return undefined;
  }
  const figures = replicaFiguresSchema.safeParse(parsed);
  return figures.success ? figures.data : undefined;
}

export function localStatusSource(figures: () => ReplicaFigures, lag: StatusSource['lag']): StatusSource {
  return { replicas: () => Promise.resolve([figures()]), lag };
}
