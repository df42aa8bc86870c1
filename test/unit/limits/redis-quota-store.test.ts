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

const storeOn = (redis: Redis, spendCapPerHour?: number, now = () => 1000) =>
  createRedisQuotaStore({
    redis,
    key: 'gw:vehicle',
    perWindow: 300,
    windowMs: 1035,
    spacingMs: 3.45,
    burstMs: 103.5,
    burstSpacingMs: 0.8625,
    spendCapPerHour,
    now,
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

  it('keeps a slot between the wait after the send and the wait after the answer, whatever the clock estimate', async () => {
    // Each reserve reads the clock when it sends and when it reads the answer.
    const clock = [1000, 1000.2, 2000, 2000.8, 3000, 3040, 4000, 4000.4];
    const evalsha = vi.fn((..._args: unknown[]) => Promise.resolve<unknown>(undefined));
    const answer = (waitUs: number, slotMs: number) => [0, waitUs, String(slotMs * 1000), 0, 1, '1'];
    evalsha
      // 0.2 ms round trip: the best sample, local clock 4,000.0 ms behind Redis's.
      .mockResolvedValueOnce(answer(0, 5000.1))
      // The clocks drifted by 1.1 ms since; a slower sample (0.8 ms) does not replace the best,
      // so the estimate puts this free slot 0.7 ms after the answer.
      .mockResolvedValueOnce(answer(0, 6001.5))
      // The answer waited 40 ms for a busy event loop: the slot (free) began near the send.
      .mockResolvedValueOnce(answer(0, 7000.1))
      // A slot 5 ms away, estimated 0.6 ms later than its latest possible moment.
      .mockResolvedValueOnce(answer(5000, 8006))
      .mockRejectedValue(new Error('no more answers'));
    const store = storeOn({ evalsha } as unknown as Redis, undefined, () => clock.shift() ?? Number.NaN);
    const dueAt = async (): Promise<number | undefined> => {
      const admission = await store.reserve();
      return admission.kind === 'slot' ? admission.dueAt : undefined;
    };
    expect(await dueAt()).toBeCloseTo(1000.1, 6);
    // A free slot is never in the future: the call starts without sleeping.
    expect(await dueAt()).toBeCloseTo(2000.8, 6);
    // Lateness is still seen: the slot is counted from the estimate, 39.9 ms before the answer.
    expect(await dueAt()).toBeCloseTo(3000.1, 6);
    expect(await dueAt()).toBeCloseTo(4005.4, 6);
  });
});
