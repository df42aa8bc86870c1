import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  DataCipher,
  isSealed,
  SealedValueError,
  sealedKeyId,
  UnknownDataKeyError,
} from '../../../src/at-rest/cipher.js';

const key = (id: string) => ({ id, material: randomBytes(32) });
const SETTING = 'REDIS_ENCRYPTION_KEYS_FILE';

describe('DataCipher (AES-256-GCM at rest)', () => {
  it('opens what it sealed, and the sealed bytes hold none of the plain text', () => {
    const cipher = new DataCipher([key('k1')], SETTING);
    const plain = JSON.stringify({ cpf: '52998224725', name: 'MARIA DA SILVA' });
    const sealed = cipher.seal(plain, 'vg:idempotency:request:paid:r1');
    expect(isSealed(sealed)).toBe(true);
    expect(sealedKeyId(sealed)).toBe('k1');
    expect(sealed.toString('latin1')).not.toContain('52998224725');
    expect(sealed.toString('latin1')).not.toContain('MARIA');
    expect(cipher.open(sealed, 'vg:idempotency:request:paid:r1').toString('utf8')).toBe(plain);
    // A fresh IV each time: the same value never seals to the same bytes.
    expect(cipher.seal(plain, 'ctx').equals(cipher.seal(plain, 'ctx'))).toBe(false);
  });

  it('gives every value its own IV, past any pooling of random bytes, and each opens', () => {
    const cipher = new DataCipher([key('k1')], SETTING);
    const plain = Buffer.from('{"cpf":"52998224725"}');
    const ivs = new Set<string>();
    for (let i = 0; i < 2_000; i++) {
      const sealed = cipher.seal(plain, `ctx:${i}`);
      // 0x00 0x01, id length, 'k1', then the 12-byte IV.
      ivs.add(sealed.subarray(5, 17).toString('hex'));
      expect(cipher.open(sealed, `ctx:${i}`).equals(plain)).toBe(true);
    }
    expect(ivs.size).toBe(2_000);
  });

  it('refuses a tampered value, and one moved under another Redis key', () => {
    const cipher = new DataCipher([key('k1')], SETTING);
    const sealed = cipher.seal('{"status":"ok"}', 'key-a');
    for (const at of [sealed.length - 1, sealed.length - 20]) {
      const tampered = Buffer.from(sealed);
      tampered[at] = (tampered[at] ?? 0) ^ 0x01;
      expect(() => cipher.open(tampered, 'key-a')).toThrow(SealedValueError);
    }
    expect(() => cipher.open(sealed, 'key-b')).toThrow(/key id "k1" does not open: altered or moved/);
    expect(() => cipher.open(sealed.subarray(0, 10), 'key-a')).toThrow(/truncated/);
  });

  it('names the setting and the key id, never the key, when a value names a key not listed', () => {
    const old = key('2025-01');
    const sealed = new DataCipher([old], SETTING).seal('{}', 'ctx');
    const current = new DataCipher([key('2026-01')], SETTING);
    let caught: unknown;
    try {
      current.open(sealed, 'ctx');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(UnknownDataKeyError);
    const message = (caught as Error).message;
    expect(message).toMatch(
      /^a value in Redis is sealed with key id "2025-01", which REDIS_ENCRYPTION_KEYS_FILE does not list/,
    );
    expect(message).not.toContain(old.material.toString('base64'));
  });

  it('rotates without downtime: seals with the first key, opens with any listed key', () => {
    const k1 = key('k1');
    const k2 = key('k2');
    const before = new DataCipher([k1], SETTING);
    const during = new DataCipher([k1, k2], SETTING); // step 1: k2 known everywhere, k1 still seals
    const after = new DataCipher([k2, k1], SETTING); // step 2: k2 seals, k1 still opens
    const byBefore = before.seal('old', 'ctx');
    const byDuring = during.seal('mid', 'ctx');
    const byAfter = after.seal('new', 'ctx');
    expect(sealedKeyId(byDuring)).toBe('k1');
    expect(sealedKeyId(byAfter)).toBe('k2');
    expect(during.open(byAfter, 'ctx').toString()).toBe('new');
    expect(after.open(byBefore, 'ctx').toString()).toBe('old');
    expect(after.open(byDuring, 'ctx').toString()).toBe('mid');
    // Step 3, past the dedupe window: k1 dropped; what k2 sealed still opens.
    expect(new DataCipher([k2], SETTING).open(byAfter, 'ctx').toString()).toBe('new');
  });

  it('tells values stored in clear (JSON, gzip) from sealed ones', () => {
    expect(isSealed(Buffer.from('{"status":"ok"}'))).toBe(false);
    expect(isSealed(Buffer.from([0x1f, 0x8b, 0x08, 0x00]))).toBe(false);
  });

  it('keeps key material out of JSON and of inspection', () => {
    const k = key('k1');
    const cipher = new DataCipher([k], SETTING);
    expect(JSON.stringify(cipher)).not.toContain(k.material.toString('base64'));
    expect(JSON.stringify({ cipher })).not.toContain('material');
  });
});
