import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * `npm run dev`: keys of encryption at rest for the local stack, made once under
 * `<STACK_DIR>/secrets/` (mode 0600) and kept, so that a second run reads what the first
 * sealed. Nothing when the environment gives keys or ALLOW_PLAINTEXT_REDIS.
 */
export function devAtRestFiles(
  env: Readonly<Record<string, string | undefined>>,
  root: string = process.cwd(),
): Record<string, string> {
  const given = ['REDIS_ENCRYPTION_KEYS', 'REDIS_INDEX_KEY', 'ALLOW_PLAINTEXT_REDIS'].some(
    (name) => (env[name] ?? '') !== '' || (env[`${name}_FILE`] ?? '') !== '',
  );
  if (given) return {};
  const dir = join(env.STACK_DIR ?? join(root, '.stack'), 'secrets');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const keys = join(dir, 'redis-encryption-keys');
  const index = join(dir, 'redis-index-key');
  writeOnce(keys, `dev:${randomBytes(32).toString('base64')}\n`);
  writeOnce(index, `${randomBytes(32).toString('base64')}\n`);
  return { REDIS_ENCRYPTION_KEYS_FILE: keys, REDIS_INDEX_KEY_FILE: index };
}

function writeOnce(path: string, content: string): void {
  try {
    writeFileSync(path, content, { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}
