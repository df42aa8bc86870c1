import { constants, gunzipSync, gzipSync } from 'node:zlib';
import type { Redis } from 'ioredis';
import type { Operation } from '../contract/operations.js';
import type { HandlerOutcome } from '../handlers/types.js';

/**
 * Outcomes already paid for, by requestId, for the dedupe window: a redelivered request
 * (after a crash, a rebalance or a redrive) reuses the outcome instead of calling the vendor
 * again (shared/contract.md: "at most one billable vendor call per requestId").
 */
export interface IdempotencyStore {
  get(operation: Operation, requestId: string): Promise<HandlerOutcome | undefined>;
  put(operation: Operation, requestId: string, outcome: HandlerOutcome): Promise<void>;
}

export function redisIdempotencyStore(
  redis: Redis,
  keyPrefix: string,
  windowSeconds: number,
): IdempotencyStore {
  const keyOf = (operation: Operation, requestId: string): string =>
    `${keyPrefix}:paid:${operation}:${requestId}`;
  return {
    async get(operation, requestId) {
      const stored = await redis.getBuffer(keyOf(operation, requestId));
      return stored ? (JSON.parse(decode(stored)) as HandlerOutcome) : undefined;
    },
    async put(operation, requestId, outcome) {
      await redis.set(keyOf(operation, requestId), encode(JSON.stringify(outcome)), 'EX', windowSeconds);
    },
  };
}

/**
 * Large outcomes (face lookups carry document images) are gzipped at the fastest level; small
 * ones are stored as they are, since compressing them costs more CPU than it saves in Redis.
 * A gzip stream starts with 0x1f 0x8b, which JSON text never does.
 */
const COMPRESS_FROM_BYTES = 16 * 1024;

function encode(json: string): Buffer | string {
  return json.length < COMPRESS_FROM_BYTES ? json : gzipSync(json, { level: constants.Z_BEST_SPEED });
}

function decode(stored: Buffer): string {
  return stored[0] === 0x1f && stored[1] === 0x8b
    ? gunzipSync(stored).toString('utf8')
    : stored.toString('utf8');
}

/** One instance only: entries expire after the window; the oldest go first beyond `maxEntries`. */
export function memoryIdempotencyStore(
  windowSeconds: number,
  maxEntries = 100_000,
  now: () => number = Date.now,
): IdempotencyStore {
  const entries = new Map<string, { outcome: HandlerOutcome; expiresAt: number }>();
  return {
    get(operation, requestId) {
      const key = `${operation}:${requestId}`;
      const entry = entries.get(key);
      if (entry && entry.expiresAt <= now()) entries.delete(key);
      return Promise.resolve(entry && entry.expiresAt > now() ? entry.outcome : undefined);
    },
    put(operation, requestId, outcome) {
      const key = `${operation}:${requestId}`;
      entries.delete(key);
      entries.set(key, { outcome, expiresAt: now() + windowSeconds * 1000 });
      if (entries.size > maxEntries) {
        const oldest = entries.keys().next();
        if (!oldest.done) entries.delete(oldest.value);
      }
      return Promise.resolve();
    },
  };
}
