import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { heartbeatsKey, redisStatusSource, startHeartbeat } from '../../src/console/heartbeat.js';
import type { ReplicaFigures } from '../../src/console/status.js';

const redis = new Redis(inject('redisUrl'));
afterAll(async () => {
  await redis.quit();
});

const figures = (replica: string, at: number): ReplicaFigures => ({ replica, at, operations: {} });
const noLag = (): Promise<Record<string, number>> => Promise.resolve({});

describe('console heartbeats in Redis', () => {
  it('lists every beating replica from one hash, drops a stopped one and one gone quiet', async () => {
    const prefix = `hb-${randomUUID()}`;
    const errors: unknown[] = [];
    const stopA = startHeartbeat(
      redis,
      prefix,
      () => figures('a', Date.now()),
      (e) => errors.push(e),
    );
    const stopB = startHeartbeat(
      redis,
      prefix,
      () => figures('b', Date.now()),
      (e) => errors.push(e),
    );
    // A replica killed long ago: its field is still there, its figures 60 s old.
    await redis.hset(heartbeatsKey(prefix), 'killed', JSON.stringify(figures('killed', Date.now() - 60_000)));
    const source = redisStatusSource(redis, prefix, noLag);

    await expect.poll(async () => (await source.replicas()).map((f) => f.replica).sort()).toEqual(['a', 'b']);
    expect(await redis.hexists(heartbeatsKey(prefix), 'killed')).toBe(0);
    expect(await redis.ttl(heartbeatsKey(prefix))).toBeGreaterThan(0);

    await stopB();
    expect((await source.replicas()).map((f) => f.replica)).toEqual(['a']);
    await stopA();
    expect(await source.replicas()).toEqual([]);
    expect(errors).toEqual([]);
  });
});
