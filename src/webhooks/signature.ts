import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The secret the sink checks on every webhook call. The vendor sends back exactly the headers
 * given at creation (vendor-api.md, "Events") and signs nothing itself, so we sign what we hand
 * it: HMAC-SHA256(WEBHOOK_SECRET, requestId + '.' + issuedAt). A caller without the secret
 * cannot name a request; a replayed call is harmless because completion is idempotent.
 */
export const WEBHOOK_HEADERS = {
  requestId: 'x-verification-request-id',
  issuedAt: 'x-verification-issued-at',
  signature: 'x-verification-signature',
} as const;

const SCHEME = 'sha256=';
/** Same bounds as the contract's requestId. */
const REQUEST_ID = /^[\s\S]{1,128}$/;

export function signWebhook(secret: string, requestId: string, issuedAt: string): string {
  return SCHEME + createHmac('sha256', secret).update(`${requestId}.${issuedAt}`).digest('hex');
}

export function signedHeaders(secret: string, requestId: string, issuedAt: Date): Record<string, string> {
  const at = issuedAt.toISOString();
  return {
    [WEBHOOK_HEADERS.requestId]: requestId,
    [WEBHOOK_HEADERS.issuedAt]: at,
    [WEBHOOK_HEADERS.signature]: signWebhook(secret, requestId, at),
  };
}

export type HeaderBag = Readonly<Record<string, string | string[] | undefined>>;

export type Verification = { ok: true; requestId: string } | { ok: false; reason: 'missing' | 'forged' };

/** Checks the signed headers (lower-case names, as node gives them) in constant time. */
export function verifyWebhook(secret: string, headers: HeaderBag): Verification {
  const requestId = single(headers[WEBHOOK_HEADERS.requestId]);
  const issuedAt = single(headers[WEBHOOK_HEADERS.issuedAt]);
  const signature = single(headers[WEBHOOK_HEADERS.signature]);
  if (requestId === undefined || issuedAt === undefined || signature === undefined) {
    return { ok: false, reason: 'missing' };
  }
  if (!REQUEST_ID.test(requestId)) return { ok: false, reason: 'forged' };
  const expected = Buffer.from(signWebhook(secret, requestId, issuedAt));
  const given = Buffer.from(signature);
  // timingSafeEqual throws on different lengths; the length of a hex digest is no secret.
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return { ok: false, reason: 'forged' };
  }
  return { ok: true, requestId };
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? (value.length === 1 ? value[0] : undefined) : value;
}
