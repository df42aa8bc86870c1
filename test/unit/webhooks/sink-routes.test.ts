import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { settleSearch } from '../../../src/webhooks/completion.js';
import { Writable } from 'node:stream';
import pino, { type Logger } from 'pino';
import { createSinkGuard, type SinkLimits } from '../../../src/webhooks/sink-guard.js';
import { WEBHOOK_HEADERS, signWebhook, signedHeaders } from '../../../src/webhooks/signature.js';
import { registerSinkRoutes } from '../../../src/webhooks/sink-routes.js';
import { WEBHOOK_PATH } from '../../../src/webhooks/webhook-target.js';
import { harness, pendingSearch, silent } from './helpers.js';

const SECRET = 'a-secret-of-at-least-16-chars';
const MAX_AGE_MS = 30 * 60_000;
const FETCH_INTERVAL_MS = 10_000;
const signed = (requestId: string): Record<string, string> => signedHeaders(SECRET, requestId, new Date());
let app: FastifyInstance | undefined;

afterEach(async () => {
  await app?.close();
  app = undefined;
});

interface SinkOptions {
  limits?: SinkLimits;
  logger?: Logger;
}

async function sink(
  overrides: Parameters<typeof harness>[0] = {},
  search = pendingSearch(),
  options: SinkOptions = {},
) {
  const h = harness(overrides);
  app = Fastify();
  const logger = options.logger ?? silent;
  registerSinkRoutes(app, {
    secret: SECRET,
    store: h.store,
    settle: (requestId, signal) => settleSearch(h.deps, requestId, 'webhook', signal),
    accepting: () => true,
    handlingTimeoutMs: 2_000,
    signatureMaxAgeMs: MAX_AGE_MS,
    fetchIntervalMs: FETCH_INTERVAL_MS,
    guard: createSinkGuard(options.limits ?? { maxConcurrent: 64, ratePerSecond: 100_000 }, logger),
    logger,
  });
  await app.ready();
  await h.store.add(search, 0);
  return { ...h, app };
}

describe('webhook sink', () => {
  it('publishes on a signed call and answers a replay with 200 and no second event', async () => {
    const { app, published } = await sink();
    const call = {
      method: 'POST' as const,
      url: WEBHOOK_PATH,
      headers: signed('req-1'),
      payload: { requestId: 'req-1' },
    };
    const first = await app.inject(call);
    expect([first.statusCode, first.json()]).toEqual([200, { status: 'completed' }]);
    const replay = await app.inject(call);
    expect([replay.statusCode, replay.json()]).toEqual([200, { status: 'done' }]);
    expect(published).toHaveLength(1);
  });

  it('answers 401 to a forged or missing signature, without touching the vendor', async () => {
    const { app, vendor, published } = await sink();
    const forged = { ...signed('req-1'), [WEBHOOK_HEADERS.signature]: `sha256=${'0'.repeat(64)}` };
    expect((await app.inject({ method: 'POST', url: WEBHOOK_PATH, headers: forged })).statusCode).toBe(401);
    expect(
      (await app.inject({ method: 'POST', url: WEBHOOK_PATH, payload: { requestId: 'req-1' } })).statusCode,
    ).toBe(401);
    expect(vendor.calls).toBe(0);
    expect(published).toHaveLength(0);
  });

  it('answers 404 to a signed call for a request it does not know', async () => {
    const { app } = await sink();
    expect(
      (await app.inject({ method: 'POST', url: WEBHOOK_PATH, headers: signed('nobody') })).statusCode,
    ).toBe(404);
  });

  it('answers 202 while the vendor still reports pending', async () => {
    const { app, vendor, published } = await sink();
    vendor.status = 'pending';
    const reply = await app.inject({ method: 'PUT', url: WEBHOOK_PATH, headers: signed('req-1') });
    expect(reply.statusCode).toBe(202);
    expect(published).toHaveLength(0);
  });

  it('waits briefly for the commit of the request, then publishes via the webhook', async () => {
    let checks = 0;
    const origin = { topic: 'requests', partition: 0, offset: '7' };
    // Committed at the third check: within the sink's short wait.
    const { app, published } = await sink(
      { isRequestCommitted: () => Promise.resolve(++checks >= 3) },
      pendingSearch({ origin }),
    );
    const reply = await app.inject({ method: 'POST', url: WEBHOOK_PATH, headers: signed('req-1') });
    expect([reply.statusCode, reply.json()]).toEqual([200, { status: 'completed' }]);
    expect(published.map((p) => [p.event.status, p.event.via])).toEqual([['completed', 'webhook']]);
  });

  it('answers 202 without an event while the request stays uncommitted', async () => {
    const origin = { topic: 'requests', partition: 0, offset: '7' };
    const { app, published, vendor } = await sink(
      { isRequestCommitted: () => Promise.resolve(false) },
      pendingSearch({ origin }),
    );
    const reply = await app.inject({ method: 'POST', url: WEBHOOK_PATH, headers: signed('req-1') });
    expect([reply.statusCode, reply.json()]).toEqual([202, { status: 'pending' }]);
    expect(published).toHaveLength(0);
    expect(vendor.calls).toBe(0);
  });

  it('accepts GET and any content type, ignores the payload, and answers 400 to bad JSON', async () => {
    const { app, published } = await sink();
    const text = { ...signed('req-1'), 'content-type': 'text/plain' };
    const bad = { ...signed('req-1'), 'content-type': 'application/json' };
    expect(
      (await app.inject({ method: 'POST', url: WEBHOOK_PATH, headers: bad, payload: '{oops' })).statusCode,
    ).toBe(400);
    expect(
      (await app.inject({ method: 'PATCH', url: WEBHOOK_PATH, headers: text, payload: 'hello' })).statusCode,
    ).toBe(200);
    expect(
      (await app.inject({ method: 'GET', url: WEBHOOK_PATH, headers: signed('req-1') })).statusCode,
    ).toBe(200);
    expect(published).toHaveLength(1);
  });

  it('refuses a body above its limit', async () => {
    const { app } = await sink();
    const payload = { requestId: 'req-1', padding: 'x'.repeat(20_000) };
    expect(
      (await app.inject({ method: 'POST', url: WEBHOOK_PATH, headers: signed('req-1'), payload })).statusCode,
    ).toBe(413);
  });

  it.each([
    ['from 2001', new Date('2001-01-01T00:00:00.000Z').toISOString()],
    ['older than a search lives', new Date(Date.now() - MAX_AGE_MS - 60_000).toISOString()],
    ['from the future', new Date(Date.now() + 3_600_000).toISOString()],
    ['unparseable', 'whatever'],
    ['another date format', new Date().toUTCString()],
  ])('answers 401 to a correctly signed issue time %s, without touching the vendor', async (_, issuedAt) => {
    const { app, vendor } = await sink();
    const headers = {
      [WEBHOOK_HEADERS.requestId]: 'req-1',
      [WEBHOOK_HEADERS.issuedAt]: issuedAt,
      [WEBHOOK_HEADERS.signature]: signWebhook(SECRET, 'req-1', issuedAt),
    };
    expect((await app.inject({ method: 'POST', url: WEBHOOK_PATH, headers })).statusCode).toBe(401);
    expect(vendor.calls).toBe(0);
  });

  it('answers 401 when a signature is re-split between the request id and the issue time', async () => {
    const issuedAt = new Date().toISOString();
    const { app } = await sink({}, pendingSearch({ requestId: 'req-1.x' }));
    // Under the old "requestId.issuedAt" encoding these two pairs signed the same string.
    const signature = signWebhook(SECRET, 'req-1', `x.${issuedAt}`);
    const headers = {
      [WEBHOOK_HEADERS.requestId]: 'req-1.x',
      [WEBHOOK_HEADERS.issuedAt]: issuedAt,
      [WEBHOOK_HEADERS.signature]: signature,
    };
    expect((await app.inject({ method: 'POST', url: WEBHOOK_PATH, headers })).statusCode).toBe(401);
  });

  it('10,000 signed replays within a minute make at most one vendor GET per fetch interval', async () => {
    const { app, vendor, clock } = await sink();
    vendor.status = 'pending';
    const headers = signed('req-1');
    const started = clock.now;
    for (let call = 0; call < 10_000; call++) {
      // The calls spread over one minute of the store's clock.
      clock.now = started + Math.floor((call * 60_000) / 10_000);
      const reply = await app.inject({ method: 'POST', url: WEBHOOK_PATH, headers });
      expect(reply.statusCode).toBe(202);
    }
    expect(vendor.calls).toBeGreaterThan(0);
    expect(vendor.calls).toBeLessThanOrEqual(60_000 / FETCH_INTERVAL_MS + 1);
  }, 60_000);

  it('logs 1,000 unsigned calls as a bounded number of lines that count them', async () => {
    const lines: string[] = [];
    const sinkStream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const { app } = await sink({}, pendingSearch(), { logger: pino({ level: 'info' }, sinkStream) });
    for (let call = 0; call < 1_000; call++) {
      const reply = await app.inject({
        method: 'POST',
        url: WEBHOOK_PATH,
        headers: { 'x-other': String(call) },
      });
      expect(reply.statusCode).toBe(401);
    }
    const rejections = lines.filter((line) => line.includes('webhook calls rejected'));
    expect(rejections.length).toBeGreaterThan(0);
    expect(rejections.length).toBeLessThanOrEqual(2);
    expect(JSON.parse(rejections[0]!)).toMatchObject({ rejected: { missing: 1 } });
  });

  it('lets no flood of unsigned calls spend the rate that signed calls need', async () => {
    const { app, published } = await sink({}, pendingSearch(), {
      limits: { maxConcurrent: 64, ratePerSecond: 3 },
    });
    for (let call = 0; call < 10; call++) {
      const reply = await app.inject({ method: 'POST', url: WEBHOOK_PATH, headers: { 'x-other': '1' } });
      expect(reply.statusCode).toBe(401);
    }
    const signedCall = await app.inject({ method: 'POST', url: WEBHOOK_PATH, headers: signed('req-1') });
    expect(signedCall.statusCode).toBe(200);
    expect(published).toHaveLength(1);
  });

  it('answers 429 with Retry-After beyond its rate of signed calls', async () => {
    const { app, vendor } = await sink({}, pendingSearch(), {
      limits: { maxConcurrent: 64, ratePerSecond: 3 },
    });
    const codes: number[] = [];
    for (let call = 0; call < 5; call++) {
      const reply = await app.inject({ method: 'POST', url: WEBHOOK_PATH, headers: signed('req-1') });
      codes.push(reply.statusCode);
      if (reply.statusCode === 429) expect(Number(reply.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    }
    expect(codes.filter((code) => code === 429)).toHaveLength(2);
    expect(vendor.calls).toBe(1);
  });

  it('answers 503 beyond its concurrency', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<boolean>((resolve) => {
      release = () => {
        resolve(true);
      };
    });
    const { app } = await sink({ isRequestCommitted: () => held }, pendingSearch({ origin: ORIGIN }), {
      limits: { maxConcurrent: 1, ratePerSecond: 1_000 },
    });
    const first = app.inject({ method: 'POST', url: WEBHOOK_PATH, headers: signed('req-1') });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const second = await app.inject({ method: 'POST', url: WEBHOOK_PATH, headers: signed('req-1') });
    expect(second.statusCode).toBe(503);
    release();
    expect((await first).statusCode).toBe(200);
  });
});

const ORIGIN = { topic: 'requests', partition: 0, offset: '7' };
