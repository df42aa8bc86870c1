import { randomBytes } from 'node:crypto';

/** Keys of encryption at rest for services under test: one pair per test process. */
const KEYS = `test-${randomBytes(3).toString('hex')}:${randomBytes(32).toString('base64')}`;
const INDEX_KEY = randomBytes(32).toString('base64');

export function atRestEnv(): { REDIS_ENCRYPTION_KEYS: string; REDIS_INDEX_KEY: string } {
  return { REDIS_ENCRYPTION_KEYS: KEYS, REDIS_INDEX_KEY: INDEX_KEY };
}
