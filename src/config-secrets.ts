import { readFileSync } from 'node:fs';
import { ConfigError } from './errors.js';

/**
 * Settings that hold a secret. Each may instead be given as `<NAME>_FILE`, a path whose
 * content is the value (a mounted Kubernetes or Docker secret): the secret then never sits in
 * the environment, where `/proc/<pid>/environ` and crash reports can show it.
 */
export const SECRET_SETTINGS = [
  'VENDOR_API_KEY',
  'WEBHOOK_SECRET',
  'KAFKA_SASL_PASSWORD',
  'SCHEMA_REGISTRY_PASSWORD',
  'REDIS_PASSWORD',
  'CONSOLE_TOKEN',
  'CONSOLE_OPERATOR_TOKEN',
  'REDIS_ENCRYPTION_KEYS',
  'REDIS_INDEX_KEY',
  'CONSOLE_TOKENS',
] as const;

/** The environment with every `<NAME>_FILE` of a secret setting read into `<NAME>`. */
export function withSecretFiles(
  env: Readonly<Record<string, string | undefined>>,
  names: readonly string[] = SECRET_SETTINGS,
): Record<string, string | undefined> {
  const resolved: Record<string, string | undefined> = { ...env };
  for (const name of names) {
    const path = env[`${name}_FILE`];
    if (path === undefined || path === '') continue;
    if (env[name] !== undefined && env[name] !== '') {
      throw new ConfigError(`${name}_FILE`, `cannot be set together with ${name}; give one of them`);
    }
    resolved[name] = readSettingFile(`${name}_FILE`, path).replace(/\r?\n$/, '');
  }
  return resolved;
}

/**
 * The name to blame for a bad value of `name`: `<NAME>_FILE` when the value came from that
 * file, so that the message names the setting the operator actually wrote.
 */
export function settingGiven(env: Readonly<Record<string, string | undefined>>, name: string): string {
  const file = env[`${name}_FILE`];
  return file !== undefined && file !== '' && (env[name] === undefined || env[name] === '')
    ? `${name}_FILE`
    : name;
}

/** A file named by a setting (a secret, a CA or a client certificate); the error names the setting. */
export function readSettingFile(setting: string, path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new ConfigError(setting, `cannot read the file ${path} (${code})`);
  }
}
