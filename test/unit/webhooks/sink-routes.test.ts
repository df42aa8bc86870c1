import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { settleSearch } from '../../../src/webhooks/completion.js';
import { WEBHOOK_HEADERS, signedHeaders } from '../../../src/webhooks/signature.js';
import { registerSinkRoutes } from '../../../src/webhooks/sink-routes.js';
import { WEBHOOK_PATH } from '../../../src/webhooks/webhook-target.js';
import { harness, pendingSearch, silent } from './helpers.js';

const SECRET = 'a-secret-of-at-least-16-chars';
const signed = (requestId: string): Record<string, string> => signedHeaders(SECRET, requestId, new Date());
let app: FastifyInstance | undefined;

afterEach(async () => {
  await app?.close();
  app = undefined;
});

async function sink(overrides: Parameters<typeof harness>[0] = {}, search = pendingSearch()) {
  const h = harness(overrides);
  app = Fastify();
  registerSinkRoutes(app, {
    secret: SECRET,
    store: h.store,
    settle: (requestId, signal) => settleSearch(h.deps, requestId, 'webhook', signal),
    accepting: () => true,
    handlingTimeoutMs: 2_000,
    logger: silent,
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
});
