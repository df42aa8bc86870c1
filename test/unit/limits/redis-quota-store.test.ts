import type { Redis } from 'ioredis';
import { describe, expect, it, vi } from 'vitest';
import { createRedisQuotaStore } from '../../../src/limits/redis-quota-store.js';

/** Just the commands the store uses; the real scripts run in test/integration/limits.test.ts. */
function fakeRedis(reply: unknown, evalshaError = new Error('NOSCRIPT No matching script. Use EVAL.')) {
  const evalsha = vi.fn((..._args: unknown[]) => Promise.reject(evalshaError));
  const evalScript = vi.fn((..._args: unknown[]) => Promise.resolve(reply));
  const pttl = vi.fn(() => Promise.resolve(-2));
  const redis = { evalsha, eval: evalScript, pttl } as unknown as Redis;
  return { redis, evalsha, evalScript };
}

const storeOn = (redis: Redis, spendCapPerHour?: number) =>
  createRedisQuotaStore({
    redis,
    key: 'gw:vehicle',
    perWindow: 300,
    windowMs: 1035,
    spacingMs: 3.45,
    burstMs: 103.5,
    burstSpacingMs: 0.8625,
    spendCapPerHour,
    now: () => 1000,
  });

describe('redis quota store', () => {
  it('falls back to EVAL when Redis has forgotten the script, with keys in one hash slot', async () => {
    const { redis, evalsha, evalScript } = fakeRedis([
      0,
      2500,
      '1763717000123456',
      0,
      490199,
      '1763717000126906',
    ]);
    await expect(storeOn(redis).reserve()).resolves.toEqual({
      kind: 'slot',
      waitMs: 2.5,
      // The clock (1000) answered at once, so the slot is due 2.5 ms after it on this clock.
      dueAt: expect.closeTo(1002.5, 3) as unknown,
      token: { slot: '1763717000123456', tat: '1763717000126906', window: 490199 },
      started: undefined,
    });
    expect(evalsha).toHaveBeenCalledTimes(1);
    expect(evalScript.mock.calls[0]?.slice(1, 6)).toEqual([
      4,
      '{gw:vehicle}:log',
      '{gw:vehicle}:tat',
      '{gw:vehicle}:backoff',
      '{gw:vehicle}:spend',
    ]);
    // per window, window µs, spacing µs, burst µs, burst spacing µs, slots kept, spend cap, hour.
    expect(evalScript.mock.calls[0]?.slice(6)).toEqual([
      300, 1_035_000, 3450, 103_500, 863, 364, 0, 3_600_000,
    ]);
  });

  it('reads the shared start count only when a spend cap is set', async () => {
    const { redis } = fakeRedis([0, 0, '1', 7, 1, '2']);
    await expect(storeOn(redis, 10).reserve()).resolves.toMatchObject({ kind: 'slot', started: 7 });
  });

  it('reads backoff and spend-cap answers', async () => {
    await expect(storeOn(fakeRedis([1, 1200]).redis).reserve()).resolves.toEqual({
      kind: 'backoff',
      waitMs: 1200,
    });
    await expect(storeOn(fakeRedis([2, 5000, 10, 1_800_000_000_000]).redis, 10).reserve()).resolves.toEqual({
      kind: 'spend-cap',
      waitMs: 5000,
      started: 10,
      resumeAt: 1_800_000_000_000,
    });
  });

  it('passes other Redis errors on and refuses malformed replies', async () => {
    const down = new Error('connect ECONNREFUSED');
    await expect(storeOn(fakeRedis([0], down).redis).reserve()).rejects.toBe(down);
    await expect(storeOn(fakeRedis('OK').redis).reserve()).rejects.toThrow('unexpected quota script reply');
  });
});
