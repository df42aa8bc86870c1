import { describe, expect, it } from 'vitest';
import {
  WEBHOOK_HEADERS,
  signedHeaders,
  signWebhook,
  verifyWebhook,
  withoutWebhookSecrets,
} from '../../../src/webhooks/signature.js';
import { resolvePublicUrl, sinkUrl, webhookTarget } from '../../../src/webhooks/webhook-target.js';

const SECRET = 'a-secret-of-at-least-16-chars';
const at = new Date('2026-11-21T10:00:00.000Z');

describe('webhook signature', () => {
  it('accepts the headers it signed and names their request', () => {
    expect(verifyWebhook(SECRET, signedHeaders(SECRET, 'req-1', at))).toEqual({
      ok: true,
      requestId: 'req-1',
    });
  });

  it('rejects a signature made with another secret', () => {
    const headers = signedHeaders('another-secret-of-16-chars', 'req-1', at);
    expect(verifyWebhook(SECRET, headers)).toEqual({ ok: false, reason: 'forged' });
  });

  it('rejects a signature moved to another request', () => {
    const headers = { ...signedHeaders(SECRET, 'req-1', at), [WEBHOOK_HEADERS.requestId]: 'req-2' };
    expect(verifyWebhook(SECRET, headers)).toEqual({ ok: false, reason: 'forged' });
  });

  it('rejects a changed issue time, a truncated signature and repeated headers', () => {
    const headers = signedHeaders(SECRET, 'req-1', at);
    const signature = headers[WEBHOOK_HEADERS.signature]!;
    expect(verifyWebhook(SECRET, { ...headers, [WEBHOOK_HEADERS.issuedAt]: 'now' }).ok).toBe(false);
    expect(
      verifyWebhook(SECRET, { ...headers, [WEBHOOK_HEADERS.signature]: signature.slice(0, -1) }).ok,
    ).toBe(false);
    expect(
      verifyWebhook(SECRET, { ...headers, [WEBHOOK_HEADERS.signature]: [signature, signature] }).ok,
    ).toBe(false);
  });

  it('reports missing headers apart from forged ones', () => {
    expect(verifyWebhook(SECRET, {})).toEqual({ ok: false, reason: 'missing' });
  });

  it('signs an encoding of the pair that cannot be re-split, with HMAC-SHA256', () => {
    expect(signWebhook(SECRET, 'r', 't')).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(signWebhook(SECRET, 'r.t', '')).not.toBe(signWebhook(SECRET, 'r', 't'));
    expect(signWebhook(SECRET, 'r', 't.u')).not.toBe(signWebhook(SECRET, 'r.t', 'u'));
  });

  it('checks the issue time when told the time and the longest age', () => {
    const headers = signedHeaders(SECRET, 'req-1', at);
    const now = at.getTime();
    expect(verifyWebhook(SECRET, headers, { now: now + 59_000, maxAgeMs: 60_000 }).ok).toBe(true);
    expect(verifyWebhook(SECRET, headers, { now: now + 61_000, maxAgeMs: 60_000 })).toEqual({
      ok: false,
      reason: 'stale',
    });
  });

  it('strips our signed headers from a vendor answer echoing the webhook, keeping the rest', () => {
    const raw = {
      id: 'v-1',
      data: {
        status: 'sucessful',
        webhook: {
          url: 'https://gw.example.com/webhooks/vehicle-search',
          headers: { ...signedHeaders(SECRET, 'req-1', at), 'X-Verification-Signature': 'x', other: 'kept' },
        },
      },
    };
    expect(withoutWebhookSecrets(raw)).toEqual({
      id: 'v-1',
      data: {
        status: 'sucessful',
        webhook: { url: 'https://gw.example.com/webhooks/vehicle-search', headers: { other: 'kept' } },
      },
    });
    expect(withoutWebhookSecrets({ data: { webhook: null } })).toEqual({ data: { webhook: null } });
  });
});

describe('webhook target', () => {
  it('points at the sink below the public URL, signed, with the requestId in the body', () => {
    const target = webhookTarget({
      publicUrl: new URL('https://gw.example.com/base/'),
      secret: SECRET,
      method: 'PUT',
      now: () => at,
    })('req-1');
    expect(target.url).toBe('https://gw.example.com/base/webhooks/vehicle-search');
    expect(target.method).toBe('PUT');
    expect(target.body).toEqual({ requestId: 'req-1' });
    expect(verifyWebhook(SECRET, target.headers ?? {})).toEqual({ ok: true, requestId: 'req-1' });
  });

  it('sends no body with GET', () => {
    const target = webhookTarget({
      publicUrl: new URL('http://h'),
      secret: SECRET,
      method: 'GET',
      now: () => at,
    });
    expect(target('r').body).toBeUndefined();
  });

  it('replaces port 0 of the public URL with the bound port, and keeps any other', () => {
    expect(sinkUrl(resolvePublicUrl('http://127.0.0.1:0', 4321))).toBe(
      'http://127.0.0.1:4321/webhooks/vehicle-search',
    );
    expect(resolvePublicUrl('https://gw.example.com', 4321).port).toBe('');
    expect(() => resolvePublicUrl('http://127.0.0.1:0', undefined)).toThrow(/port 0/);
  });
});
