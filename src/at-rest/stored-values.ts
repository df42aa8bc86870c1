import { InfrastructureError } from '../errors.js';
import { isSealed, type DataCipher } from './cipher.js';

/**
 * What the Redis stores write and read: sealed with the cipher when one is configured, in
 * clear otherwise (ALLOW_PLAINTEXT_REDIS). Values written in clear before encryption was
 * turned on are still read (they expire with the dedupe window); a sealed value is never
 * read without its key.
 */
export function sealForRedis(
  cipher: DataCipher | undefined,
  plain: Buffer | string,
  context: string,
): Buffer | string {
  return cipher ? cipher.seal(plain, context) : plain;
}

/**
 * The plain bytes of a stored value. A value that cannot be opened (its key no longer
 * configured, altered, or no keys at all) is an infrastructure failure: the request is tried
 * again in place, never answered by a second vendor call, and the message names the setting
 * and the key id only.
 */
export function openStored(cipher: DataCipher | undefined, stored: Buffer, context: string): Buffer {
  if (!isSealed(stored)) return stored;
  if (!cipher) {
    throw new InfrastructureError(
      'a value in Redis is sealed, and REDIS_ENCRYPTION_KEYS is not set: give the keys it was sealed with',
    );
  }
  try {
    return cipher.open(stored, context);
  } catch (error) {
    throw new InfrastructureError(error instanceof Error ? error.message : String(error), { cause: error });
  }
}
