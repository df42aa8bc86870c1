/**
 * Issue 39, N3: console sessions and the login throttle lived in the replica's memory, so a
 * restart logged everyone out and forgot the wrong tokens counted. With Redis they are kept
 * there: two consoles on one Redis stand for a replica and its restart (or its sibling).
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, describe, expect, inject, it } from 'vitest';
import type { AuditContext } from '../../src/audit/scan.js';
import { DataCipher } from '../../src/at-rest/cipher.js';
import { SubjectIndex } from '../../src/at-rest/subjects.js';
import type { AtRest } from '../../src/config-at-rest.js';
import { registerConsole, type ConsoleDeps } from '../../src/console/index.js';

const redis = new Redis(inject('redisUrl'));
const apps: FastifyInstance[] = [];
afterAll(async () => {
  for (const app of apps) await app.close();
  await redis.quit();
});

const OPERATOR_TOKEN = 'operator-token-0123456789';

/** Keys of encryption at rest, as config-at-rest.ts reads them. */
function atRestKeys(id = 'k1'): AtRest {
  return {
    cipher: new DataCipher([{ id, material: randomBytes(32) }], 'REDIS_ENCRYPTION_KEYS'),
    index: new SubjectIndex(randomBytes(32).toString('base64')),
  };
}

async function consoleApp(prefix: string, extra: Partial<ConsoleDeps> = {}): Promise<FastifyInstance> {
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
    ...extra,
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

  it('keys the throttle by a keyed hash of the address: Redis holds nothing an unkeyed hash finds (issue 50, finding 11)', async () => {
    const address = '127.0.0.9';
    const unkeyed = [
      createHash('sha256').update(address).digest('base64url'),
      createHash('sha256').update(address).digest('hex'),
      createHash('sha256').update(address).digest('base64'),
    ];
    const countKeys = async (prefix: string): Promise<string[]> => redis.keys(`${prefix}:console:login*`);
    // Plain Redis (the key comes from the console tokens), then sealed Redis (from the at-rest keys).
    const plain = `throttle-key-${randomUUID()}`;
    expect((await login(await consoleApp(plain), 'wrong-token-0')).statusCode).toBe(401);
    const sealed = `throttle-key-${randomUUID()}`;
    const first = atRestKeys();
    expect((await login(await consoleApp(sealed, { atRest: first }), 'wrong-token-0')).statusCode).toBe(401);
    // Another deployment's secret: the same address counts under another key.
    expect(
      (await login(await consoleApp(sealed, { atRest: atRestKeys() }), 'wrong-token-0')).statusCode,
    ).toBe(401);
    const keys = [...(await countKeys(plain)), ...(await countKeys(sealed))];
    expect(keys).toHaveLength(3);
    for (const key of keys) {
      expect(key).not.toContain(address);
      for (const hash of unkeyed) expect(key).not.toContain(hash);
    }
    // Replicas sharing the secret share the count: two more wrong tokens hold the address off.
    const sibling = await consoleApp(sealed, { atRest: first });
    expect((await login(sibling, 'wrong-token-1')).statusCode).toBe(401);
    expect((await login(sibling, 'wrong-token-2')).statusCode).toBe(401);
    expect((await login(sibling, OPERATOR_TOKEN)).statusCode).toBe(429);
  });

  it('a session value copied under another session id opens nothing, nor one sealed with other bytes (issue 50, finding 1)', async () => {
    const prefix = `sessions-${randomUUID()}`;
    const keys = atRestKeys();
    const refused: string[] = [];
    const app = await consoleApp(prefix, {
      atRest: keys,
      countRefused: (store, reason) => refused.push(`${store}:${reason}`),
    });
    const response = await login(app, OPERATOR_TOKEN);
    const id = response.cookies.find((c) => c.name === 'vg_console')?.value ?? '';
    expect(
      (await app.inject({ url: '/console/redrive', headers: { cookie: `vg_console=${id}` } })).statusCode,
    ).toBe(200);
    const keyOf = (sessionId: string): string =>
      `${prefix}:console:session:${createHash('sha256').update(sessionId).digest('base64url')}`;
    const value = (await redis.getBuffer(keyOf(id))) ?? Buffer.alloc(0);
    // The operator's own value, under an id of the writer's choice.
    const moved = randomBytes(32).toString('base64url');
    await redis.set(keyOf(moved), value, 'PX', 60_000);
    expect(
      (await app.inject({ url: '/console/redrive', headers: { cookie: `vg_console=${moved}` } })).statusCode,
    ).toBe(401);
    // Sealed as the service seals, with other bytes under the same key id.
    const forged = randomBytes(32).toString('base64url');
    const other = atRestKeys();
    await redis.set(
      keyOf(forged),
      other.cipher.seal(JSON.stringify({ role: 'operator', actor: 'anyone' }), keyOf(forged)),
      'PX',
      60_000,
    );
    expect(
      (await app.inject({ url: '/console/redrive', headers: { cookie: `vg_console=${forged}` } })).statusCode,
    ).toBe(401);
    expect(refused).toEqual(['console-session:unopenable', 'console-session:unopenable']);
    // Refused values are dropped; the operator's own session goes on.
    expect(await redis.exists(keyOf(moved), keyOf(forged))).toBe(0);
    expect(
      (await app.inject({ url: '/console/redrive', headers: { cookie: `vg_console=${id}` } })).statusCode,
    ).toBe(200);
  });
});
