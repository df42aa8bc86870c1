import type { Redis } from 'ioredis';
import { ConfigError } from '../errors.js';
import type { DataCipher } from './cipher.js';
import { keyCheckKey } from './key-check.js';

/**
 * Which keys sealed the values Redis still holds, so that a key dropped too early stops
 * start-up with a message naming the setting and the key id, instead of failing requests one
 * by one. Redis keeps, per key id, when a replica last sealed with it (`{prefix}:at-rest:keys`,
 * a hash of key id → epoch ms; never key material). A value sealed then lives at most the
 * dedupe window, plus the refresh interval of the marker.
 */
export const KEY_USE_REFRESH_MS = 10 * 60 * 1000;

export function keyUsageKey(topicPrefix: string): string {
  return `${topicPrefix}:at-rest:keys`;
}

export interface KeyUsageDeps {
  redis: Redis;
  topicPrefix: string;
  cipher: DataCipher;
  /** How long a sealed value may live: the dedupe window (longer than any pending search). */
  valueLifeMs: number;
  now?: () => number;
}

/**
 * Refuses to start when a key id not configured may still seal live values; forgets the ids
 * whose values have all expired (and their check values, key-check.ts). Then records the
 * current key as in use.
 */
export async function checkKeysInUse(deps: KeyUsageDeps): Promise<void> {
  const now = (deps.now ?? Date.now)();
  const key = keyUsageKey(deps.topicPrefix);
  const used = await deps.redis.hgetall(key);
  const known = new Set(deps.cipher.keyIds);
  const expired: string[] = [];
  for (const [id, at] of Object.entries(used)) {
    const liveUntil = Number(at) + deps.valueLifeMs + KEY_USE_REFRESH_MS;
    if (known.has(id)) continue;
    if (!(liveUntil > now)) {
      expired.push(id);
      continue;
    }
    throw new ConfigError(
      deps.cipher.setting,
      `Redis may hold values sealed with key id "${id}" until ${new Date(liveUntil).toISOString()}, and it is not listed: add that key back (after the first line) until then`,
    );
  }
  if (expired.length > 0) {
    await deps.redis.hdel(key, ...expired);
    // No value of theirs is left to contradict: an expired id may later name another key.
    await deps.redis.del(...expired.map((id) => keyCheckKey(deps.topicPrefix, id)));
  }
  await recordKeyUse(deps);
}

export async function recordKeyUse(deps: KeyUsageDeps): Promise<void> {
  await deps.redis.hset(
    keyUsageKey(deps.topicPrefix),
    deps.cipher.currentKeyId,
    String((deps.now ?? Date.now)()),
  );
}

/** Keeps the marker fresh while the process seals values; stop() at shutdown. */
export function keepRecordingKeyUse(deps: KeyUsageDeps, onError: (error: unknown) => void): { stop(): void } {
  const timer = setInterval(() => {
    recordKeyUse(deps).catch(onError);
  }, KEY_USE_REFRESH_MS);
  timer.unref();
  return {
    stop: () => {
      clearInterval(timer);
    },
  };
}
