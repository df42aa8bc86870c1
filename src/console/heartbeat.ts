import type { Redis } from 'ioredis';
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

/** Every live replica's figures, from the hash; figures older than the TTL are dropped. */
export function redisStatusSource(
  redis: Redis,
  prefix: string,
  lag: StatusSource['lag'],
  now: () => number = Date.now,
): StatusSource {
  const key = heartbeatsKey(prefix);
  return {
    lag,
    async replicas() {
      const fields = await redis.hgetall(key);
      const live: ReplicaFigures[] = [];
      const stale: string[] = [];
      for (const [replica, value] of Object.entries(fields)) {
        const figures = JSON.parse(value) as ReplicaFigures;
        if (figures.at >= now() - TTL_SECONDS * 1000) live.push(figures);
        else stale.push(replica);
      }
      if (stale.length > 0) await redis.hdel(key, ...stale).catch(() => undefined);
      return live;
    },
  };
}

export function localStatusSource(figures: () => ReplicaFigures, lag: StatusSource['lag']): StatusSource {
  return { replicas: () => Promise.resolve([figures()]), lag };
}
