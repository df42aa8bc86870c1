import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { redisIdempotencyStore } from '../../src/consumers/idempotency.js';

describe('redis idempotency store', () => {
  const redis = new Redis(inject('redisUrl'));
  const store = redisIdempotencyStore(redis, {
    keyPrefix: `test-${randomUUID()}`,
    windowSeconds: 60,
    reservationTtlMs: 30_000,
  });
  const paid = {
    paramsHash: 'h',
    outcome: { status: 'ok' as const, response: { n: 1 }, vendor: { httpStatus: 200 } },
  };
  afterAll(async () => {
    await redis.quit();
  });

  it('refuses a second reservation while the first is held', async () => {
    const id = randomUUID();
    const first = await store.reserve('lawsuits-summary', id);
    expect(first).toBeDefined();
    expect(await store.reserve('lawsuits-summary', id)).toBeUndefined();
    await first?.release();
    expect(await store.reserve('lawsuits-summary', id)).toBeDefined();
  });

  it('stores the outcome and frees the reservation in one step, after which nobody reserves', async () => {
    const id = randomUUID();
    const reservation = await store.reserve('lawsuits-summary', id);
    await reservation?.complete(paid);
    expect(await store.get('lawsuits-summary', id)).toEqual(paid);
    expect(await store.reserve('lawsuits-summary', id)).toBeUndefined();
  });
});
