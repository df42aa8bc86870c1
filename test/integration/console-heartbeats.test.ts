import { randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, describe, expect, inject, it } from 'vitest';
import type { AuditContext } from '../../src/audit/scan.js';
import { heartbeatsKey, redisStatusSource, startHeartbeat } from '../../src/console/heartbeat.js';
import { registerConsole } from '../../src/console/index.js';
import type { OperationFigures, ReplicaFigures } from '../../src/console/status.js';

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

  it('skips and counts a malformed entry: the status page still renders for everyone (issue 50, finding 10)', async () => {
    const prefix = `hb-${randomUUID()}`;
    const vehicle: OperationFigures = {
      calls: 7,
      inFlight: 0,
      breaker: 'closed',
      ratePerSecond: 10,
      spendCapPerHour: null,
      callsThisHour: 7,
      deadLetters: {},
      paused: [],
    };
    const stop = startHeartbeat(
      redis,
      prefix,
      () => ({ replica: 'healthy-replica', at: Date.now(), operations: { vehicle } }),
      () => undefined,
    );
    // Not JSON; JSON of another shape (figures without their lists); not an object at all.
    await redis.hset(heartbeatsKey(prefix), {
      garbled: '{"replica": "garbled", "at": ',
      'wrong-shape': JSON.stringify({ replica: 'wrong-shape', at: Date.now(), operations: { vehicle: {} } }),
      'not-an-object': '42',
    });
    const refused: string[] = [];
    const status = redisStatusSource(redis, prefix, noLag, { onRefused: (reason) => refused.push(reason) });
    const app = Fastify({ logger: false });
    await registerConsole(app, {
      tokens: { tokens: [{ name: 'ana', role: 'read-only', token: 'read-only-token-0123456789' }] },
      prefix,
      audit: () => ({}) as unknown as AuditContext,
      auditLog: { write: () => Promise.resolve(), close: () => Promise.resolve() },
      status,
      logger: pino({ level: 'silent' }),
      now: () => new Date(),
    });
    const login = await app.inject({
      method: 'POST',
      url: '/console/login',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ token: 'read-only-token-0123456789' }).toString(),
    });
    const cookie = `vg_console=${login.cookies.find((c) => c.name === 'vg_console')?.value ?? ''}`;
    const page = await app.inject({ url: '/console/status', headers: { cookie } });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('vehicle');
    const json = await app.inject({ url: '/console/status.json', headers: { cookie } });
    expect(json.statusCode).toBe(200);
    expect(json.json<{ replicas: number }>().replicas).toBe(1);
    // Counted once each: a refused entry is dropped from the hash, as a stale one is.
    expect(refused).toEqual(['malformed', 'malformed', 'malformed']);
    expect((await redis.hkeys(heartbeatsKey(prefix))).sort()).toEqual(['healthy-replica']);
    await app.close();
    await stop();
  });
});
