/**
 * Issue 39, N3: console sessions and the login throttle lived in the replica's memory, so a
 * restart logged everyone out and forgot the wrong tokens counted. With Redis they are kept
 * there: two consoles on one Redis stand for a replica and its restart (or its sibling).
 */
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, describe, expect, inject, it } from 'vitest';
import type { AuditContext } from '../../src/audit/scan.js';
import { registerConsole } from '../../src/console/index.js';

const redis = new Redis(inject('redisUrl'));
const apps: FastifyInstance[] = [];
afterAll(async () => {
  for (const app of apps) await app.close();
  await redis.quit();
});

const OPERATOR_TOKEN = 'operator-token-0123456789';

async function consoleApp(prefix: string): Promise<FastifyInstance> {
  const app = Fastify({ logger: false });
  await registerConsole(app, {
    tokens: { tokens: [{ name: 'maria.souza', role: 'operator', token: OPERATOR_TOKEN }] },
    prefix,
    audit: () => ({}) as unknown as AuditContext,
    auditLog: { write: () => Promise.resolve(), close: () => Promise.resolve() },
    status: { replicas: () => Promise.resolve([]), lag: () => Promise.resolve({}) },
    logger: pino({ level: 'silent' }),
    now: () => new Date(),
    loginThrottle: { attempts: 3, windowSeconds: 600 },
    redis,
  });
  apps.push(app);
  return app;
}

const login = (app: FastifyInstance, token: string) =>
  app.inject({
    method: 'POST',
    url: '/console/login',
    remoteAddress: '127.0.0.9',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ token }).toString(),
  });

describe('console sessions and login throttle in Redis (issue 39, N3)', () => {
  it('a session opened before a restart is still open after it; Redis holds neither token nor session id', async () => {
    const prefix = `sessions-${randomUUID()}`;
    const before = await consoleApp(prefix);
    const response = await login(before, OPERATOR_TOKEN);
    expect(response.statusCode).toBe(303);
    const id = response.cookies.find((c) => c.name === 'vg_console')?.value ?? '';
    expect(id).not.toBe('');
    await before.close();

    const after = await consoleApp(prefix);
    const page = await after.inject({ url: '/console/redrive', headers: { cookie: `vg_console=${id}` } });
    expect(page.statusCode).toBe(200);

    const keys = await redis.keys(`${prefix}:*`);
    expect(keys.length).toBeGreaterThan(0);
    const stored = JSON.stringify([keys, await Promise.all(keys.map((k) => redis.get(k)))]);
    expect(stored).not.toContain(OPERATOR_TOKEN);
    expect(stored).not.toContain(id);
    expect(stored).not.toContain('127.0.0.9');

    // Logout closes it on every replica.
    const html = page.body;
    const csrf = /name="csrf-token" content="([^"]+)"/.exec(html)?.[1] ?? '';
    const csrfCookie = page.cookies.find((c) => c.name === 'vg_console_csrf')?.value ?? '';
    const out = await after.inject({
      method: 'POST',
      url: '/console/logout',
      headers: {
        cookie: `vg_console=${id}; vg_console_csrf=${csrfCookie}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      payload: new URLSearchParams({ _csrf: csrf }).toString(),
    });
    expect(out.statusCode).toBe(303);
    const again = await consoleApp(prefix);
    expect(
      (await again.inject({ url: '/console/status', headers: { cookie: `vg_console=${id}` } })).statusCode,
    ).toBe(401);
  });

  it('wrong tokens counted before a restart still hold logins off after it', async () => {
    const prefix = `throttle-${randomUUID()}`;
    const before = await consoleApp(prefix);
    for (let i = 0; i < 3; i++)
      expect((await login(before, `wrong-token-${String(i)}`)).statusCode).toBe(401);
    await before.close();
    const after = await consoleApp(prefix);
    expect((await login(after, OPERATOR_TOKEN)).statusCode).toBe(429);
  });
});
