import { ConfigError } from './errors.js';
import { settingGiven, withSecretFiles } from './config-secrets.js';
import { DATA_KEY_ID, DataCipher, type DataKey } from './at-rest/cipher.js';
import { SubjectIndex } from './at-rest/subjects.js';

/**
 * The keys of encryption at rest (REDIS_ENCRYPTION_KEYS) and of the subject index
 * (REDIS_INDEX_KEY), both secrets that may come from `<NAME>_FILE`. Redis holds personal data
 * (paid outcomes, pending searches), so a service with REDIS_URL refuses to start without them
 * unless ALLOW_PLAINTEXT_REDIS=true (local use). With them, only what they sealed is trusted;
 * REDIS_CLEAR_VALUES_UNTIL lets values an earlier version wrote in clear be read for a while.
 */
export interface AtRest {
  cipher: DataCipher;
  index: SubjectIndex;
  /**
   * REDIS_CLEAR_VALUES_UNTIL, epoch ms: until then values an earlier version wrote in clear are
   * still read (at-rest/stored-values.ts); absent, none is.
   */
  clearValuesUntil?: number;
}

export interface AtRestEnv {
  REDIS_URL?: string | undefined;
  REDIS_ENCRYPTION_KEYS?: string | undefined;
  REDIS_INDEX_KEY?: string | undefined;
  ALLOW_PLAINTEXT_REDIS: boolean;
  /** Epoch ms. */
  REDIS_CLEAR_VALUES_UNTIL?: number | undefined;
  /** Bounds REDIS_CLEAR_VALUES_UNTIL (loadConfig always gives it). */
  DEDUPE_WINDOW_SECONDS?: number;
}

/** `name` as the operator wrote it: `<name>_FILE` when the value came from a file. */
type Blame = (name: 'REDIS_ENCRYPTION_KEYS' | 'REDIS_INDEX_KEY') => string;

const MIN_INDEX_KEY_CHARS = 32;
const MIN_DISTINCT_KEY_BYTES = 16;

export function readAtRest(env: AtRestEnv, blame: Blame, now: () => number = Date.now): AtRest | undefined {
  const keys = env.REDIS_ENCRYPTION_KEYS;
  const indexKey = env.REDIS_INDEX_KEY;
  if (keys === undefined && indexKey === undefined) {
    if (env.REDIS_URL !== undefined && !env.ALLOW_PLAINTEXT_REDIS) {
      throw new ConfigError(
        'REDIS_ENCRYPTION_KEYS',
        'is required with REDIS_URL (Redis holds paid outcomes and pending searches, personal data): give REDIS_ENCRYPTION_KEYS_FILE and REDIS_INDEX_KEY_FILE, or ALLOW_PLAINTEXT_REDIS=true for local use',
      );
    }
    return undefined;
  }
  if (keys === undefined) throw new ConfigError('REDIS_ENCRYPTION_KEYS', 'is required with REDIS_INDEX_KEY');
  if (indexKey === undefined)
    throw new ConfigError(
      'REDIS_INDEX_KEY',
      'is required with REDIS_ENCRYPTION_KEYS (erasure finds a person by it)',
    );
  if (indexKey.length < MIN_INDEX_KEY_CHARS || new Set(indexKey).size < 8)
    throw new ConfigError(
      blame('REDIS_INDEX_KEY'),
      `must be at least ${MIN_INDEX_KEY_CHARS} random characters`,
    );
  const setting = blame('REDIS_ENCRYPTION_KEYS');
  const clearValuesUntil = clearWindow(env, now);
  return {
    cipher: new DataCipher(parseDataKeys(keys, setting), setting),
    index: new SubjectIndex(indexKey),
    ...(clearValuesUntil === undefined ? {} : { clearValuesUntil }),
  };
}

/**
 * The migration window of values written in clear: it ends at a fixed time, at most one dedupe
 * window after the start that reads the setting (by then every value an earlier version wrote
 * has expired), so that leaving the setting in place never holds the window open.
 */
function clearWindow(env: AtRestEnv, now: () => number): number | undefined {
  const until = env.REDIS_CLEAR_VALUES_UNTIL;
  if (until === undefined || env.DEDUPE_WINDOW_SECONDS === undefined) return until;
  const latest = now() + env.DEDUPE_WINDOW_SECONDS * 1000;
  if (until > latest)
    throw new ConfigError(
      'REDIS_CLEAR_VALUES_UNTIL',
      `must be at most DEDUPE_WINDOW_SECONDS from now (${new Date(latest).toISOString()}): values written in clear before have expired by then`,
    );
  return until;
}

/**
 * One key a line, `<id>:<32 bytes in base64>`; blank lines and `#` comments are skipped. The
 * first key seals, every key opens: to rotate, add the new key on the last line everywhere,
 * then move it to the first line, then drop the old one once the dedupe window has passed.
 * A key of low entropy (fewer than 16 distinct byte values: 32 zero bytes, one byte repeated)
 * is refused. Errors name the setting and the line, never the key material.
 */
export function parseDataKeys(text: string, setting: string): DataKey[] {
  const keys: DataKey[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const at = line.indexOf(':');
    const id = at < 0 ? '' : line.slice(0, at);
    const encoded = at < 0 ? '' : line.slice(at + 1).trim();
    if (!DATA_KEY_ID.test(id))
      throw new ConfigError(
        setting,
        `line ${i + 1}: expected <id>:<base64 key>, the id of 1-32 letters, digits, ".", "_" or "-"`,
      );
    const material = /^[A-Za-z0-9+/]+={0,2}$/.test(encoded)
      ? Buffer.from(encoded, 'base64')
      : Buffer.alloc(0);
    if (material.length !== 32)
      throw new ConfigError(
        setting,
        `line ${i + 1}: key "${id}" must be 32 bytes in base64 (openssl rand -base64 32)`,
      );
    // 32 random bytes hold about 30 distinct values; fewer than 16 is a key typed or derived
    // by hand (all zeros, one byte repeated, a short phrase), not one of openssl rand's.
    if (new Set(material).size < MIN_DISTINCT_KEY_BYTES)
      throw new ConfigError(
        setting,
        `line ${i + 1}: key "${id}" is not random (fewer than ${MIN_DISTINCT_KEY_BYTES} distinct byte values): make one with openssl rand -base64 32`,
      );
    if (keys.some((k) => k.id === id))
      throw new ConfigError(setting, `line ${i + 1}: key id "${id}" is listed twice`);
    keys.push({ id, material });
  });
  if (keys.length === 0) throw new ConfigError(setting, 'lists no key');
  return keys;
}

/** What the erase command needs of Redis: where it is, and the index key to find a person by. */
export interface EraseSettings {
  redisUrl: string;
  redisPassword: string | undefined;
  index: SubjectIndex;
}

export function loadEraseSettings(env: Readonly<Record<string, string | undefined>>): EraseSettings {
  const resolved = withSecretFiles(env, ['REDIS_PASSWORD', 'REDIS_INDEX_KEY']);
  const redisUrl = resolved.REDIS_URL?.trim() ?? '';
  if (!/^rediss?:\/\/./.test(redisUrl))
    throw new ConfigError(
      'REDIS_URL',
      'is required: erase removes the values the service keeps in Redis (redis:// or rediss://)',
    );
  const indexKey = resolved.REDIS_INDEX_KEY ?? '';
  if (indexKey === '')
    throw new ConfigError(
      'REDIS_INDEX_KEY',
      "is required: erase finds a person's values by it (the service's own)",
    );
  if (indexKey.length < MIN_INDEX_KEY_CHARS)
    throw new ConfigError(
      settingGiven(env, 'REDIS_INDEX_KEY'),
      `must be at least ${MIN_INDEX_KEY_CHARS} random characters`,
    );
  const password = resolved.REDIS_PASSWORD;
  return {
    redisUrl,
    redisPassword: password === undefined || password === '' ? undefined : password,
    index: new SubjectIndex(indexKey),
  };
}
