import {
  createCipheriv,
  createDecipheriv,
  createSecretKey,
  randomFillSync,
  type KeyObject,
} from 'node:crypto';

/**
 * Encryption at rest of what the service keeps in Redis (paid outcomes, pending searches):
 * AES-256-GCM from node:crypto, a fresh 96-bit IV per value, the Redis key the value lives
 * under as additional authenticated data (a value copied under another key does not open).
 *
 * A sealed value names the key that sealed it, so keys rotate without downtime: values are
 * sealed with the first key of the ring and opened with any key it lists. Layout:
 *
 *   0x00 0x01 <id length: 1 byte> <id: ASCII> <IV: 12 bytes> <tag: 16 bytes> <ciphertext>
 *
 * The leading 0x00 is never the first byte of JSON text nor of a gzip stream (0x1f 0x8b), so
 * values stored in clear before the upgrade are told apart and still read: they expire with
 * the dedupe window.
 */
export interface DataKey {
  /** Written into each sealed value; letters, digits, `.`, `_`, `-`, 1-32 characters. */
  id: string;
  /** 32 bytes. Never logged, never written to Redis or a metric. */
  material: Buffer;
}

const MARKER = 0x00;
const VERSION = 0x01;
const IV_BYTES = 12;
const TAG_BYTES = 16;
export const DATA_KEY_ID = /^[A-Za-z0-9._-]{1,32}$/;

/** A sealed value names a key the ring does not hold (removed too early, or another deployment's). */
export class UnknownDataKeyError extends Error {
  constructor(
    readonly keyId: string,
    readonly setting: string,
  ) {
    super(
      `a value in Redis is sealed with key id "${keyId}", which ${setting} does not list: add that key back (after the new one) until the values it sealed have expired`,
    );
    this.name = 'UnknownDataKeyError';
  }
}

/** A sealed value that does not open: altered, truncated, or moved under another key. */
export class SealedValueError extends Error {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, options);
    this.name = 'SealedValueError';
  }
}

export class DataCipher {
  // Private fields: a logger or JSON.stringify handed the cipher sees no key material. Each
  // key is held as a KeyObject, made once: handed raw bytes, createCipheriv makes one for
  // every value, which took a seal from about 5.5 to 19 µs on this machine and made the key
  // handling ~9% of the service's busy time in benchmark (a).
  readonly #byId: ReadonlyMap<string, KeyObject>;
  readonly #current: { id: string; key: KeyObject; header: Buffer };

  /** `keys[0]` seals; every key opens. `setting` names where the keys came from, for errors. */
  constructor(
    keys: readonly DataKey[],
    readonly setting: string,
  ) {
    const [first] = keys;
    if (!first) throw new Error(`${setting}: at least one key is needed`);
    const byId = new Map<string, KeyObject>();
    for (const key of keys) {
      if (!DATA_KEY_ID.test(key.id)) throw new Error(`${setting}: bad key id "${key.id}"`);
      if (key.material.length !== 32) throw new Error(`${setting}: key "${key.id}" is not 32 bytes`);
      if (byId.has(key.id)) throw new Error(`${setting}: key id "${key.id}" is listed twice`);
      byId.set(key.id, createSecretKey(key.material));
    }
    this.#byId = byId;
    const id = Buffer.from(first.id, 'ascii');
    this.#current = {
      id: first.id,
      key: createSecretKey(first.material),
      header: Buffer.concat([Buffer.from([MARKER, VERSION, id.length]), id]),
    };
  }

  /** The id values are sealed with now. */
  get currentKeyId(): string {
    return this.#current.id;
  }

  /** The ids the ring opens. */
  get keyIds(): readonly string[] {
    return [...this.#byId.keys()];
  }

  /**
   * One buffer, written in place: the header, an IV from the pool, the tag, then the
   * ciphertext (as long as the plain text: GCM is a stream mode).
   */
  seal(plain: Buffer | string, context: string): Buffer {
    const bytes = typeof plain === 'string' ? Buffer.from(plain, 'utf8') : plain;
    const header = this.#current.header;
    const ivAt = header.length;
    const bodyAt = ivAt + IV_BYTES + TAG_BYTES;
    const sealed = Buffer.allocUnsafe(bodyAt + bytes.length);
    header.copy(sealed, 0);
    const iv = sealed.subarray(ivAt, ivAt + IV_BYTES);
    freshIv(iv);
    const cipher = createCipheriv('aes-256-gcm', this.#current.key, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const written =
      cipher.update(bytes).copy(sealed, bodyAt) + cipher.final().copy(sealed, bodyAt + bytes.length);
    if (written !== bytes.length)
      throw new Error('AES-256-GCM wrote a ciphertext longer than its plain text');
    cipher.getAuthTag().copy(sealed, ivAt + IV_BYTES);
    return sealed;
  }

  /** The plain bytes of a sealed value; throws UnknownDataKeyError or SealedValueError. */
  open(sealed: Buffer, context: string): Buffer {
    const { keyId, iv, tag, body } = parseSealed(sealed);
    const material = this.#byId.get(keyId);
    if (!material) throw new UnknownDataKeyError(keyId, this.setting);
    try {
      const decipher = createDecipheriv('aes-256-gcm', material, iv);
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(body), decipher.final()]);
    } catch (error) {
      throw new SealedValueError(`a value sealed with key id "${keyId}" does not open: altered or moved`, {
        cause: error,
      });
    }
  }
}

/**
 * IVs come from a pool of random bytes filled 512 IVs at a time: one call into the CSPRNG per
 * IV (randomBytes) was about a fifth of sealing's CPU in benchmark (a). Each pooled byte is
 * handed out once, so IVs stay as random and as unique as before.
 */
const IV_POOL = Buffer.alloc(IV_BYTES * 512);
let ivPoolAt = IV_POOL.length;

function freshIv(into: Buffer): void {
  if (ivPoolAt + IV_BYTES > IV_POOL.length) {
    randomFillSync(IV_POOL);
    ivPoolAt = 0;
  }
  IV_POOL.copy(into, 0, ivPoolAt, ivPoolAt + IV_BYTES);
  ivPoolAt += IV_BYTES;
}

/** True for a value this module sealed; false for JSON or gzip stored in clear. */
export function isSealed(stored: Buffer): boolean {
  return stored.length > 2 && stored[0] === MARKER;
}

/** The key id a sealed value names (for the start-up check and the erase command's counts). */
export function sealedKeyId(stored: Buffer): string {
  return parseSealed(stored).keyId;
}

function parseSealed(sealed: Buffer): { keyId: string; iv: Buffer; tag: Buffer; body: Buffer } {
  if (sealed.length < 3 || sealed[0] !== MARKER) throw new SealedValueError('not a sealed value');
  if (sealed[1] !== VERSION) throw new SealedValueError(`sealed value of unknown version ${sealed[1]}`);
  const idLength = sealed[2] ?? 0;
  const ivAt = 3 + idLength;
  const bodyAt = ivAt + IV_BYTES + TAG_BYTES;
  if (idLength === 0 || sealed.length < bodyAt) throw new SealedValueError('sealed value truncated');
  const keyId = sealed.subarray(3, ivAt).toString('ascii');
  if (!DATA_KEY_ID.test(keyId)) throw new SealedValueError('sealed value with a bad key id');
  return {
    keyId,
    iv: sealed.subarray(ivAt, ivAt + IV_BYTES),
    tag: sealed.subarray(ivAt + IV_BYTES, bodyAt),
    body: sealed.subarray(bodyAt),
  };
}
