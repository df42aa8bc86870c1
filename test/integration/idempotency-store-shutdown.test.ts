/**
 * A paid outcome whose store keeps failing is retried until Redis takes it, but no longer than
 * the shutdown: `settle(signal)` ends the retries when its signal aborts (the runtime's
 * shutdown deadline). Before, the write was retried for ever, with no way to stop it, and kept
 * the stopped service's process alive. This file's own redis-server refuses writes
 * (maxmemory 1) once the reservation is taken.
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisIdempotencyStore, requestKeys } from '../../src/requests/idempotency.js';
import { countCalls } from '../helpers/count-calls.js';
import { startOwnRedis, type OwnRedis } from '../helpers/own-redis.js';
import { until } from '../helpers/wait.js';

let own: OwnRedis;
let redis: Redis;

beforeAll(async () => {
  own = await startOwnRedis();
  redis = own.redis;
});

afterAll(() => {
  own.stop();
});

describe('a paid outcome that Redis refuses to store', () => {
  it('is retried until the shutdown signal aborts, then no more, and its reservation is left to lapse', async () => {
    const keyPrefix = `test-${randomUUID()}`;
    const store = redisIdempotencyStore(redis, {
      keyPrefix,
      windowSeconds: 60,
      reservationTtlMs: 30_000,
      retryWriteMs: 20,
    });
    const requestId = randomUUID();
    const claim = await store.claim('lawsuits-summary', requestId);
    if (!claim || !('reservation' in claim)) throw new Error('expected a reservation');
    await redis.config('SET', 'maxmemory', '1');
    try {
      const sent = countCalls(redis, 'evalshaBuffer');
      const write = claim.reservation.complete({
        paramsHash: 'h',
        outcome: { status: 'ok', response: { n: 1 }, vendor: { httpStatus: 200 } },
      });
      await until('the store tried again', () => sent.count() >= 3);
      const shutdown = new AbortController();
      const settled = store.settle(shutdown.signal);
      shutdown.abort();
      await settled;
      await write;
      const triesAtStop = sent.count();
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(sent.count()).toBe(triesAtStop);
      sent.restore();
    } finally {
      await redis.config('SET', 'maxmemory', '0');
    }
    // Nothing was stored; the reservation is still there, no longer extended, and lapses.
    const { paid, reserved } = requestKeys(keyPrefix, requestId);
    expect(await redis.exists(paid)).toBe(0);
    expect(await redis.pttl(reserved)).toBeGreaterThan(0);
  });
});
