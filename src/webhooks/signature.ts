import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The secret the sink checks on every webhook call. The vendor sends back exactly the headers
 * given at creation (vendor-api.md, "Events") and signs nothing itself, so we sign what we hand
 * it: HMAC-SHA256(WEBHOOK_SECRET, JSON.stringify([requestId, issuedAt])). JSON, because the
 * old `requestId.issuedAt` could be split differently (both may hold a '.'). A caller without
 * the secret cannot name a request; a signature expires with its search (`maxAgeMs`), and a
 * replay within that time costs no more than the sink's per-search fetch interval allows.
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
  return (
    SCHEME +
    createHmac('sha256', secret)
      .update(JSON.stringify([requestId, issuedAt]))
      .digest('hex')
  );
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

export type RejectReason = 'missing' | 'forged' | 'stale';
export type Verification = { ok: true; requestId: string } | { ok: false; reason: RejectReason };

export interface Freshness {
  now: number;
  /** A search's lifetime and a margin: no signature outlives the search it names. */
  maxAgeMs: number;
}

/** Clocks of two hosts disagree a little; a signature from further ahead is not ours. */
const FUTURE_SKEW_MS = 5 * 60 * 1000;
/** Exactly what Date.toISOString() writes: nothing else was ever signed. */
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * Checks the signed headers (lower-case names, as node gives them) in constant time, then the
 * issue time: unparseable, older than `maxAgeMs` or from the future is `stale`.
 */
export function verifyWebhook(secret: string, headers: HeaderBag, freshness?: Freshness): Verification {
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
  if (freshness && !fresh(issuedAt, freshness)) return { ok: false, reason: 'stale' };
  return { ok: true, requestId };
}

function fresh(issuedAt: string, { now, maxAgeMs }: Freshness): boolean {
  const at = ISO_INSTANT.test(issuedAt) ? Date.parse(issuedAt) : Number.NaN;
  return Number.isFinite(at) && at <= now + FUTURE_SKEW_MS && now - at <= maxAgeMs;
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? (value.length === 1 ? value[0] : undefined) : value;
}

const OUR_HEADERS: ReadonlySet<string> = new Set(Object.values(WEBHOOK_HEADERS));

/**
 * The vendor's answer without our signed headers. GET /vehicles-async/v3/:requestId returns
 * the webhook as given at creation (vendor-api.md, "Asynchronous vehicle search record"); the
 * final event republishes that answer to a topic kept forever, where a signature would let any
 * reader call the sink. Everything else is kept as received.
 */
export function withoutWebhookSecrets(raw: unknown): unknown {
  if (!isRecord(raw) || !isRecord(raw.data) || !isRecord(raw.data.webhook)) return raw;
  const { headers } = raw.data.webhook;
  if (!isRecord(headers)) return raw;
  const kept = Object.fromEntries(
    Object.entries(headers).filter(([name]) => !OUR_HEADERS.has(name.toLowerCase())),
  );
  return { ...raw, data: { ...raw.data, webhook: { ...raw.data.webhook, headers: kept } } };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
