/**
 * The console's access rules on its real routes (fastify inject, nothing listening): login
 * throttling per address, Secure cookies when asked for, and what a read-only session may not
 * see (a key filter, a redrive's progress). The audit reads behind the pages are not reached.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AuditContext } from '../../../src/audit/scan.js';
import type { ConsoleAuditEvent } from '../../../src/contract/audit-events.js';
import { registerConsole, type ConsoleDeps } from '../../../src/console/index.js';

const READ_TOKEN = 'read-only-token-0123456789';
const OPERATOR_TOKEN = 'operator-token-0123456789';

async function consoleApp(extra: Partial<ConsoleDeps> = {}): Promise<FastifyInstance> {
  const app = Fastify({ logger: false });
  await registerConsole(app, {
    tokens: {
      tokens: [
        { name: 'shared-read-only', role: 'read-only', token: READ_TOKEN },
        { name: 'shared-operator', role: 'operator', token: OPERATOR_TOKEN },
      ],
    },
    prefix: 'access-test',
    // No audit clients: every page these tests reach refuses, or fails its criteria, first.
    audit: () => ({}) as unknown as AuditContext,
    auditLog: {
      write: (_event: ConsoleAuditEvent) => Promise.resolve(),
      close: () => Promise.resolve(),
    },
    status: { replicas: () => Promise.resolve([]), lag: () => Promise.resolve({}) },
    logger: pino({ level: 'silent' }),
    now: () => new Date(),
    ...extra,
  });
  return app;
}

const login = (app: FastifyInstance, token: string, remoteAddress = '127.0.0.2') =>
  app.inject({
    method: 'POST',
    url: '/console/login',
    remoteAddress,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ token }).toString(),
  });

/** A page as a session with this cookie asks for it. */
const get = (app: FastifyInstance, url: string, cookie: string) => app.inject({ url, headers: { cookie } });

function sessionCookie(response: { cookies: { name: string; value: string }[] }): string {
  const session = response.cookies.find((c) => c.name === 'vg_console');
  if (!session) throw new Error('no session cookie');
  return `vg_console=${session.value}`;
}

afterEach(() => {
  vi.useRealTimers();
});

describe('console login throttling', () => {
  it('refuses an address after ten wrong tokens, the right one too, with Retry-After; others go on', async () => {
    const app = await consoleApp();
    for (let i = 0; i < 10; i++) expect((await login(app, `wrong-token-${String(i)}`)).statusCode).toBe(401);
    const held = await login(app, OPERATOR_TOKEN);
    expect(held.statusCode).toBe(429);
    const retryAfter = Number(held.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(800);
    expect(retryAfter).toBeLessThanOrEqual(900);
    expect(held.body).toContain('Too many wrong tokens');
    expect(held.cookies.some((c) => c.name === 'vg_console')).toBe(false);
    expect((await login(app, OPERATOR_TOKEN, '127.0.0.3')).statusCode).toBe(303);
    await app.close();
  });

  it('lets the address in again once the window that its first wrong token began is over', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const app = await consoleApp({ loginThrottle: { attempts: 2, windowSeconds: 60 } });
    expect((await login(app, 'wrong-token-a')).statusCode).toBe(401);
    vi.advanceTimersByTime(30_000);
    expect((await login(app, 'wrong-token-b')).statusCode).toBe(401);
    expect((await login(app, READ_TOKEN)).statusCode).toBe(429);
    vi.advanceTimersByTime(29_000);
    expect((await login(app, READ_TOKEN)).statusCode).toBe(429);
    vi.advanceTimersByTime(2_000);
    expect((await login(app, READ_TOKEN)).statusCode).toBe(303);
    await app.close();
  });

  it('starts the count again after a right token', async () => {
    const app = await consoleApp({ loginThrottle: { attempts: 3, windowSeconds: 60 } });
    for (let round = 0; round < 3; round++) {
      expect((await login(app, 'wrong-token-a')).statusCode).toBe(401);
      expect((await login(app, 'wrong-token-b')).statusCode).toBe(401);
      expect((await login(app, READ_TOKEN)).statusCode).toBe(303);
    }
    await app.close();
  });
});

describe('named tokens only (CONSOLE_REQUIRE_NAMED_TOKENS, issue 50, finding 12)', () => {
  const NAMED_TOKEN = 'maria-token-0f1e2d3c4b5a6978';
  const tokens = {
    tokens: [
      { name: 'shared-read-only', role: 'read-only' as const, token: READ_TOKEN },
      { name: 'shared-operator', role: 'operator' as const, token: OPERATOR_TOKEN },
      { name: 'maria.souza', role: 'operator' as const, token: NAMED_TOKEN },
    ],
  };

  it('refuses the shared tokens at login, without a session, and lets a named token in', async () => {
    const app = await consoleApp({ tokens: { ...tokens, namedOnly: true } });
    for (const shared of [READ_TOKEN, OPERATOR_TOKEN]) {
      const refused = await login(app, shared);
      expect(refused.statusCode).toBe(403);
      expect(refused.body).toContain('Shared tokens are not accepted');
      expect(refused.cookies.some((c) => c.name === 'vg_console')).toBe(false);
    }
    const named = await login(app, NAMED_TOKEN);
    expect(named.statusCode).toBe(303);
    expect((await get(app, '/console/redrive', sessionCookie(named))).statusCode).toBe(200);
    await app.close();
  });

  it('lets the shared tokens in when it is off (the default)', async () => {
    const app = await consoleApp({ tokens });
    expect((await login(app, OPERATOR_TOKEN)).statusCode).toBe(303);
    await app.close();
  });
});

describe('console cookies', () => {
  it('are Secure only when asked for, and HttpOnly and SameSite=Strict always', async () => {
    for (const secure of [false, true]) {
      const app = await consoleApp({ secureCookies: secure });
      const response = await login(app, READ_TOKEN);
      const cookie = response.cookies.find((c) => c.name === 'vg_console');
      expect(cookie?.secure === true).toBe(secure);
      expect(cookie?.httpOnly).toBe(true);
      expect(cookie?.sameSite).toBe('Strict');
      await app.close();
    }
  });
});

describe('what a read-only session may not see', () => {
  it('filters dead letters by key for an operator only: a key is personal data', async () => {
    const app = await consoleApp();
    const readOnly = sessionCookie(await login(app, READ_TOKEN));
    const refused = await get(app, '/console/dead-letters?key=12345678909', readOnly);
    expect(refused.statusCode).toBe(403);
    expect(refused.body).toContain('Filtering by key needs the operator token');
    expect(refused.body).not.toContain('12345678909');
    const form = await get(app, '/console/dead-letters?from=nonsense', readOnly);
    expect(form.body).toContain('name="requestId" value=');
    expect(form.body).not.toContain('Key <input name="key"');
    const operator = sessionCookie(await login(app, OPERATOR_TOKEN));
    // The operator's key filter goes on to the audit read, which this app does not have.
    const allowed = await get(app, '/console/dead-letters?key=12345678909&from=nonsense', operator);
    expect(allowed.statusCode).toBe(400);
    expect(allowed.body).toContain('Key <input name="key" value="12345678909"');
    await app.close();
  });

  it("shows a redrive's page and progress to an operator only", async () => {
    const app = await consoleApp();
    const readOnly = sessionCookie(await login(app, READ_TOKEN));
    const operator = sessionCookie(await login(app, OPERATOR_TOKEN));
    for (const url of ['/console/redrive/jobs/some-id', '/console/redrive/jobs/some-id/progress']) {
      expect((await get(app, url, readOnly)).statusCode).toBe(403);
      expect((await get(app, url, operator)).statusCode).toBe(404);
    }
    await app.close();
  });
});
