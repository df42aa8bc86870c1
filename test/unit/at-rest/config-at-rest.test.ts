import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sealedKeyId } from '../../../src/at-rest/cipher.js';
import { loadConfig } from '../../../src/config.js';

const base = {
  KAFKA_BROKERS: '127.0.0.1:9092',
  VENDOR_BASE_URL: 'https://vendor.example',
  VENDOR_API_KEY: 'k',
  REDIS_URL: 'redis://127.0.0.1:6379',
};
const dir = mkdtempSync(join(tmpdir(), 'config-at-rest-'));
const file = (name: string, content: string): string => {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
};
const material = randomBytes(32).toString('base64');
const indexKey = randomBytes(32).toString('base64');

describe('encryption at rest settings', () => {
  it('refuses to start with Redis and no keys, unless ALLOW_PLAINTEXT_REDIS says so', () => {
    expect(() => loadConfig(base)).toThrow(
      /^REDIS_ENCRYPTION_KEYS: is required with REDIS_URL .*ALLOW_PLAINTEXT_REDIS=true for local use/,
    );
    expect(loadConfig({ ...base, ALLOW_PLAINTEXT_REDIS: 'true' }).atRest).toBeUndefined();
    // Without Redis, nothing personal is kept outside the process.
    expect(loadConfig({ ...base, REDIS_URL: undefined }).atRest).toBeUndefined();
  });

  it('reads the keys and the index key from files; the first key seals', () => {
    const config = loadConfig({
      ...base,
      REDIS_ENCRYPTION_KEYS_FILE: file(
        'keys',
        `# rotated 2026-05\nnew:${material}\n\nold:${randomBytes(32).toString('base64')}\n`,
      ),
      REDIS_INDEX_KEY_FILE: file('index', `${indexKey}\n`),
    });
    expect(config.atRest?.cipher.keyIds).toEqual(['new', 'old']);
    expect(sealedKeyId(config.atRest?.cipher.seal('x', 'c') ?? Buffer.alloc(0))).toBe('new');
    expect(JSON.stringify(config)).not.toContain(material);
    expect(JSON.stringify(config)).not.toContain(indexKey);
  });

  it.each([
    [{ REDIS_ENCRYPTION_KEYS: `k1:${material}` }, /^REDIS_INDEX_KEY: is required with REDIS_ENCRYPTION_KEYS/],
    [{ REDIS_INDEX_KEY: indexKey }, /^REDIS_ENCRYPTION_KEYS: is required with REDIS_INDEX_KEY/],
    [
      { REDIS_ENCRYPTION_KEYS: `k1:${material}`, REDIS_INDEX_KEY: 'short' },
      /^REDIS_INDEX_KEY: must be at least 32/,
    ],
    [
      { REDIS_ENCRYPTION_KEYS: 'k1:c2hvcnQ=', REDIS_INDEX_KEY: indexKey },
      /^REDIS_ENCRYPTION_KEYS: line 1: key "k1" must be 32 bytes/,
    ],
    [
      { REDIS_ENCRYPTION_KEYS: material, REDIS_INDEX_KEY: indexKey },
      /^REDIS_ENCRYPTION_KEYS: line 1: expected <id>:<base64 key>/,
    ],
    [
      { REDIS_ENCRYPTION_KEYS: `k1:${material}\nk1:${material}`, REDIS_INDEX_KEY: indexKey },
      /^REDIS_ENCRYPTION_KEYS: line 2: key id "k1" is listed twice/,
    ],
    [
      { REDIS_ENCRYPTION_KEYS: '# none\n', REDIS_INDEX_KEY: indexKey },
      /^REDIS_ENCRYPTION_KEYS: lists no key/,
    ],
  ])('stops start-up naming the setting, never the key (%o)', (override, message) => {
    let caught: unknown;
    try {
      loadConfig({ ...base, ...override });
    } catch (error) {
      caught = error;
    }
    expect((caught as Error).message).toMatch(message);
    expect(String(caught)).not.toContain(material);
  });

  it('names the _FILE setting when a key read from a file is refused', () => {
    expect(() =>
      loadConfig({
        ...base,
        REDIS_ENCRYPTION_KEYS_FILE: file('bad-keys', 'k1:AAAA\n'),
        REDIS_INDEX_KEY: indexKey,
      }),
    ).toThrow(/^REDIS_ENCRYPTION_KEYS_FILE: line 1: key "k1" must be 32 bytes/);
  });
});

describe('low-entropy encryption keys are refused at start-up (issue 50, finding 12)', () => {
  const fifteenValues = Buffer.from(Array.from({ length: 32 }, (_, i) => (i * 7) % 15));
  it.each([
    ['32 zero bytes', Buffer.alloc(32)],
    ['one byte repeated', Buffer.alloc(32, 0x41)],
    ['fewer than 16 distinct byte values', fifteenValues],
  ])('%s', (_name, weak) => {
    const encoded = weak.toString('base64');
    let caught: unknown;
    try {
      loadConfig({
        ...base,
        REDIS_ENCRYPTION_KEYS: `k0:${material}\nk1:${encoded}`,
        REDIS_INDEX_KEY: indexKey,
      });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(Error);
    expect((caught as Error).message).toMatch(/^REDIS_ENCRYPTION_KEYS: line 2: key "k1" is not random/);
    expect((caught as Error).message).not.toContain(encoded);
    expect(() =>
      loadConfig({
        ...base,
        REDIS_ENCRYPTION_KEYS_FILE: file('weak-keys', `k1:${encoded}\n`),
        REDIS_INDEX_KEY: indexKey,
      }),
    ).toThrow(/^REDIS_ENCRYPTION_KEYS_FILE: line 1: key "k1" is not random/);
  });

  it('accepts keys made by openssl rand -base64 32', () => {
    for (let i = 0; i < 200; i++) {
      const key = randomBytes(32).toString('base64');
      expect(
        loadConfig({ ...base, REDIS_ENCRYPTION_KEYS: `k1:${key}`, REDIS_INDEX_KEY: indexKey }).atRest,
      ).toBeDefined();
    }
  });
});

describe('REDIS_CLEAR_VALUES_UNTIL, the migration window of values written in clear (issue 50, finding 2)', () => {
  const keys = { REDIS_ENCRYPTION_KEYS: `k1:${material}`, REDIS_INDEX_KEY: indexKey };

  it('is closed unless given: no value in clear is read', () => {
    expect(loadConfig({ ...base, ...keys }).atRest?.clearValuesUntil).toBeUndefined();
  });

  it('reads an ISO 8601 time within the dedupe window of start-up', () => {
    const until = new Date(Date.now() + 3_600_000).toISOString();
    expect(loadConfig({ ...base, ...keys, REDIS_CLEAR_VALUES_UNTIL: until }).atRest?.clearValuesUntil).toBe(
      Date.parse(until),
    );
    // A time past is accepted, and reads nothing: the window has ended by itself.
    const past = '2020-01-01T00:00:00Z';
    expect(loadConfig({ ...base, ...keys, REDIS_CLEAR_VALUES_UNTIL: past }).atRest?.clearValuesUntil).toBe(
      Date.parse(past),
    );
  });

  it.each([
    [{ REDIS_CLEAR_VALUES_UNTIL: 'next week' }, /^REDIS_CLEAR_VALUES_UNTIL: must be an ISO 8601 time/],
    [
      {
        REDIS_CLEAR_VALUES_UNTIL: new Date(Date.now() + 3 * 3_600_000).toISOString(),
        DEDUPE_WINDOW_SECONDS: '3600',
      },
      /^REDIS_CLEAR_VALUES_UNTIL: must be at most DEDUPE_WINDOW_SECONDS from now/,
    ],
  ])('refuses %o, naming it', (override, message) => {
    expect(() => loadConfig({ ...base, ...keys, ...override })).toThrow(message);
  });
});
