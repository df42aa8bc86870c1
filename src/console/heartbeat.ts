import type { Redis } from 'ioredis';
import type { ReplicaFigures, StatusSource } from './status.js';

/**
 * Replicas' figures through Redis: each writes its own key with a TTL every few seconds, the
 * console reads them all. Redis rather than a compacted topic: every replica already talks to
 * it, a TTL makes a dead replica vanish by itself (a topic would need a tombstone that a killed
 * process never writes), and reading the latest figures is one SCAN + MGET instead of a
 * consumer reading the topic from its start on every page load.
 */
export const HEARTBEAT_INTERVAL_MS = 2_000;
const TTL_SECONDS = 10;

export function heartbeatKey(prefix: string, replica: string): string {
  return `${prefix}:console:heartbeat:${replica}`;
}

export function startHeartbeat(
  redis: Redis,
  prefix: string,
  figures: () => ReplicaFigures,
  onError: (error: unknown) => void,
): () => Promise<void> {
  const beat = (): void => {
    const f = figures();
    redis.set(heartbeatKey(prefix, f.replica), JSON.stringify(f), 'EX', TTL_SECONDS).catch(onError);
  };
  beat();
  const timer = setInterval(beat, HEARTBEAT_INTERVAL_MS);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await redis.del(heartbeatKey(prefix, figures().replica)).catch(onError);
  };
}

export function redisStatusSource(redis: Redis, prefix: string, lag: StatusSource['lag']): StatusSource {
  return {
    lag,
    async replicas() {
      const keys: string[] = [];
      let cursor = '0';
      do {
        const [next, found] = await redis.scan(cursor, 'MATCH', heartbeatKey(prefix, '*'), 'COUNT', 100);
        cursor = next;
        keys.push(...found);
      } while (cursor !== '0');
      if (keys.length === 0) return [];
      const values = await redis.mget(...keys);
      return values.flatMap((v) => (v === null ? [] : [JSON.parse(v) as ReplicaFigures]));
    },
  };
}

/** One instance without Redis: its own figures only. */
export function localStatusSource(figures: () => ReplicaFigures, lag: StatusSource['lag']): StatusSource {
  return { replicas: () => Promise.resolve([figures()]), lag };
}
