import type { AtRest } from '../config-at-rest.js';
import { InfrastructureError } from '../errors.js';
import { isSealed, SealedValueError, type DataCipher } from './cipher.js';
import type { RefusalReason } from './refusals.js';

/**
 * What the Redis stores write and read: sealed with the cipher when one is configured, in
 * clear otherwise (ALLOW_PLAINTEXT_REDIS).
 */
export function sealForRedis(
  cipher: DataCipher | undefined,
  plain: Buffer | string,
  context: string,
): Buffer | string {
  return cipher ? cipher.seal(plain, context) : plain;
}

/** A stored value's plain bytes, or why it is refused (at-rest/refusals.ts). */
export type StoredValue = { plain: Buffer } | { refused: Extract<RefusalReason, 'clear' | 'unopenable'> };

/**
 * Reads back a value a Redis store wrote, trusting only what this service sealed.
 *
 * With encryption at rest, a value in clear is refused (`clear`): only this service's keys
 * make a value it may serve or act on, and anyone who can write to Redis can write clear
 * text. Values an earlier version wrote in clear are read until `atRest.clearValuesUntil`
 * (REDIS_CLEAR_VALUES_UNTIL), a migration window that ends by itself. A sealed value that does
 * not open under the key id it names (altered, moved under another Redis key, sealed with other
 * bytes) is refused too (`unopenable`); start-up has proved each key's bytes (key-check.ts), so
 * this one was not sealed by the service.
 *
 * A value naming a key id the ring does not list is not refused but an infrastructure failure
 * (retried in place, never answered by a second vendor call): in a rotation done out of order
 * it is another replica's value. Without keys (ALLOW_PLAINTEXT_REDIS) values in clear are read
 * as they are, and a sealed one is such a failure. Messages name the setting and the key id only.
 */
export function openStoredValue(
  atRest: AtRest | undefined,
  stored: Buffer,
  context: string,
  now: () => number = Date.now,
): StoredValue {
  if (!isSealed(stored)) {
    if (!atRest) return { plain: stored };
    const until = atRest.clearValuesUntil;
    return until !== undefined && now() < until ? { plain: stored } : { refused: 'clear' };
  }
  if (!atRest) {
    throw new InfrastructureError(
      'a value in Redis is sealed, and REDIS_ENCRYPTION_KEYS is not set: give the keys it was sealed with',
    );
  }
  try {
    return { plain: atRest.cipher.open(stored, context) };
  } catch (error) {
    if (error instanceof SealedValueError) return { refused: 'unopenable' };
    throw new InfrastructureError(error instanceof Error ? error.message : String(error), { cause: error });
  }
}

/**
 * The sealed bytes of a value stored as JSON `{"sealed": "<base64>", …}` (a hash field: the
 * pending searches, the heartbeats), or undefined for any other text (a value in clear).
 */
export function sealedInJson(text: string): Buffer | undefined {
  if (!text.includes('"sealed"')) return undefined;
  try {
    const parsed = JSON.parse(text) as { sealed?: unknown } | null;
    return typeof parsed?.sealed === 'string' ? Buffer.from(parsed.sealed, 'base64') : undefined;
  } catch {
    return undefined;
  }
}
