import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadAuditConfig, loadConfig } from '../../src/config.js';
import { SECRET_SETTINGS } from '../../src/config-secrets.js';

const base = {
  KAFKA_BROKERS: '127.0.0.1:9092',
  VENDOR_BASE_URL: 'https://vendor.example',
  VENDOR_API_KEY: 'k',
};
const dir = mkdtempSync(join(tmpdir(), 'config-security-'));
function file(name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

// The keys of encryption at rest have a format of their own: config-at-rest.test.ts reads them from files.
const TEXT_SECRETS = SECRET_SETTINGS.filter(
  (name) => name !== 'REDIS_ENCRYPTION_KEYS' && name !== 'REDIS_INDEX_KEY',
);
const tokenName = (name: string): string =>
  name === 'CONSOLE_TOKEN'
    ? 'shared-read-only'
    : name === 'CONSOLE_OPERATOR_TOKEN'
      ? 'shared-operator'
      : 'ana';

describe('secret settings given as files', () => {
  it.each(TEXT_SECRETS)('%s_FILE is read into %s, its final newline dropped', (name) => {
    const env = { ...base, [name]: undefined, [`${name}_FILE`]: file(name, 'from-a-file-0123456789\n') };
    const extra =
      name === 'WEBHOOK_SECRET'
        ? { WEBHOOK_PUBLIC_URL: 'https://gw.example' }
        : name === 'KAFKA_SASL_PASSWORD'
          ? { KAFKA_SASL_MECHANISM: 'plain', KAFKA_SASL_USERNAME: 'u', KAFKA_SSL: 'true' }
          : name === 'SCHEMA_REGISTRY_PASSWORD'
            ? { SCHEMA_REGISTRY_USERNAME: 'u' }
            : name === 'CONSOLE_OPERATOR_TOKEN'
              ? { CONSOLE_TOKEN: 'read-only-token-123456' }
              : name === 'CONSOLE_TOKENS'
                ? { [`${name}_FILE`]: file(name, 'ana:operator:from-a-file-0123456789\n') }
                : {};
    const config = loadConfig({ ...env, ...extra });
    const value =
      name === 'CONSOLE_TOKEN' || name === 'CONSOLE_OPERATOR_TOKEN' || name === 'CONSOLE_TOKENS'
        ? config.console?.tokens.find((t) => t.name === tokenName(name))?.token
        : config[name];
    expect(value).toBe('from-a-file-0123456789');
  });

  it('refuses a secret given both ways, and a file that cannot be read, naming the setting', () => {
    expect(() => loadConfig({ ...base, VENDOR_API_KEY_FILE: file('key', 'x') })).toThrow(
      /^VENDOR_API_KEY_FILE: cannot be set together with VENDOR_API_KEY/,
    );
    expect(() =>
      loadConfig({ ...base, VENDOR_API_KEY: undefined, VENDOR_API_KEY_FILE: join(dir, 'missing') }),
    ).toThrow(/^VENDOR_API_KEY_FILE: cannot read the file .*ENOENT/);
  });

  it('names the file setting when the value read from it is refused', () => {
    const short = file('short-token', 'too-short\n');
    expect(() => loadConfig({ ...base, CONSOLE_TOKEN_FILE: short })).toThrow(
      /^CONSOLE_TOKEN_FILE: must be at least 16 characters/,
    );
    expect(() => loadConfig({ ...base, CONSOLE_TOKEN: 'too-short' })).toThrow(
      /^CONSOLE_TOKEN: must be at least 16 characters/,
    );
  });
});

describe('weak settings are refused at start-up, naming the setting (issue 39, N5)', () => {
  const sixteenSame = 'aaaaaaaaaaaaaaaa';
  it.each([
    [
      { KAFKA_SASL_MECHANISM: 'plain', KAFKA_SASL_USERNAME: 'u', KAFKA_SASL_PASSWORD: 'p' },
      /^KAFKA_SASL_MECHANISM: plain without TLS/,
    ],
    [
      { KAFKA_SASL_MECHANISM: 'scram-sha-512', KAFKA_SASL_USERNAME: 'u', KAFKA_SASL_PASSWORD: 'p' },
      /^KAFKA_SASL_MECHANISM: scram-sha-512 without TLS/,
    ],
    [
      { WEBHOOK_PUBLIC_URL: 'http://gw.example', WEBHOOK_SECRET: 'a-secret-of-enough-length' },
      /^WEBHOOK_PUBLIC_URL: must be https/,
    ],
    [
      {
        SCHEMA_REGISTRY_URL: 'http://registry.example/apis/ccompat/v7',
        SCHEMA_REGISTRY_USERNAME: 'u',
        SCHEMA_REGISTRY_PASSWORD: 'p',
      },
      /^SCHEMA_REGISTRY_URL: must be https with basic auth/,
    ],
    [{ CONSOLE_TOKEN: sixteenSame }, /^CONSOLE_TOKEN: is weak/],
    [
      { CONSOLE_TOKEN: 'read-only-token-0123', CONSOLE_OPERATOR_TOKEN: sixteenSame },
      /^CONSOLE_OPERATOR_TOKEN: is weak/,
    ],
    [{ WEBHOOK_PUBLIC_URL: 'https://gw.example', WEBHOOK_SECRET: sixteenSame }, /^WEBHOOK_SECRET: is weak/],
    [
      { WEBHOOK_PUBLIC_URL: 'https://gw.example', WEBHOOK_SECRET: 'abababababababab' },
      /^WEBHOOK_SECRET: is weak/,
    ],
  ])('%o', (override, message) => {
    expect(() => loadConfig({ ...base, ...override })).toThrow(message);
  });

  it('names the file a weak secret came from', () => {
    expect(() => loadConfig({ ...base, CONSOLE_TOKEN_FILE: file('weak-token', `${sixteenSame}\n`) })).toThrow(
      /^CONSOLE_TOKEN_FILE: is weak/,
    );
  });

  it('the audit commands refuse SASL without TLS and basic auth over http too', () => {
    const audit = { KAFKA_BROKERS: '127.0.0.1:9092' };
    expect(() =>
      loadAuditConfig(
        {},
        { ...audit, KAFKA_SASL_MECHANISM: 'plain', KAFKA_SASL_USERNAME: 'u', KAFKA_SASL_PASSWORD: 'p' },
      ),
    ).toThrow(/^KAFKA_SASL_MECHANISM: /);
    expect(() =>
      loadAuditConfig(
        {},
        {
          ...audit,
          SCHEMA_REGISTRY_URL: 'http://r.example',
          SCHEMA_REGISTRY_USERNAME: 'u',
          SCHEMA_REGISTRY_PASSWORD: 'p',
        },
      ),
    ).toThrow(/^SCHEMA_REGISTRY_URL: /);
  });

  it('ALLOW_INSECURE_TRANSPORT=true lets the insecure transports through, for local use; weak secrets never', () => {
    const config = loadConfig({
      ...base,
      ALLOW_INSECURE_TRANSPORT: 'true',
      KAFKA_SASL_MECHANISM: 'plain',
      KAFKA_SASL_USERNAME: 'u',
      KAFKA_SASL_PASSWORD: 'p',
      SCHEMA_REGISTRY_URL: 'http://127.0.0.1:8081/apis/ccompat/v7',
      SCHEMA_REGISTRY_USERNAME: 'u',
      SCHEMA_REGISTRY_PASSWORD: 'p',
      WEBHOOK_PUBLIC_URL: 'http://127.0.0.1:0',
      WEBHOOK_SECRET: 'a-secret-of-enough-length',
    });
    expect(config.kafkaSecurity.sasl).toMatchObject({ mechanism: 'plain' });
    expect(config.registryAuth).toEqual({ username: 'u', password: 'p' });
    expect(() =>
      loadConfig({ ...base, ALLOW_INSECURE_TRANSPORT: 'true', CONSOLE_TOKEN: sixteenSame }),
    ).toThrow(/^CONSOLE_TOKEN: is weak/);
  });

  it('accepts https, SASL over TLS, and secrets made by openssl rand -hex', () => {
    const config = loadConfig({
      ...base,
      KAFKA_SSL: 'true',
      KAFKA_SASL_MECHANISM: 'scram-sha-256',
      KAFKA_SASL_USERNAME: 'u',
      KAFKA_SASL_PASSWORD: 'p',
      SCHEMA_REGISTRY_URL: 'https://registry.example/apis/ccompat/v7',
      SCHEMA_REGISTRY_USERNAME: 'u',
      SCHEMA_REGISTRY_PASSWORD: 'p',
      WEBHOOK_PUBLIC_URL: 'https://gw.example',
      WEBHOOK_SECRET: '3f9a0c6e1b2d4857a9c0e1f2b3d4a5c6e7f8091a2b3c4d5e',
      CONSOLE_TOKEN: '0f1e2d3c4b5a69788796a5b4c3d2e1f0',
    });
    expect(config.console?.tokens[0]?.token).toBe('0f1e2d3c4b5a69788796a5b4c3d2e1f0');
  });
});

describe('transport security settings', () => {
  it('requires an https vendor unless ALLOW_INSECURE_VENDOR says otherwise', () => {
    expect(() => loadConfig({ ...base, VENDOR_BASE_URL: 'http://vendor.example' })).toThrow(
      /^VENDOR_BASE_URL: must be https/,
    );
    expect(
      loadConfig({ ...base, VENDOR_BASE_URL: 'http://127.0.0.1:8090', ALLOW_INSECURE_VENDOR: 'true' })
        .VENDOR_BASE_URL,
    ).toBe('http://127.0.0.1:8090');
  });

  it("builds the Kafka client's TLS (PEM text) and SASL settings from files and credentials", () => {
    const config = loadConfig({
      ...base,
      KAFKA_SSL: 'true',
      KAFKA_SSL_CA_FILE: file('ca.pem', 'CA'),
      KAFKA_SSL_CERT_FILE: file('cert.pem', 'CERT'),
      KAFKA_SSL_KEY_FILE: file('key.pem', 'KEY'),
      KAFKA_SASL_MECHANISM: 'scram-sha-512',
      KAFKA_SASL_USERNAME: 'gateway',
      KAFKA_SASL_PASSWORD: 'pw',
    });
    expect(config.kafkaSecurity).toEqual({
      ssl: { ca: 'CA', cert: 'CERT', key: 'KEY' },
      sasl: { mechanism: 'scram-sha-512', username: 'gateway', password: 'pw' },
    });
    expect(loadConfig({ ...base, KAFKA_SSL: 'true' }).kafkaSecurity).toEqual({ ssl: true });
    expect(loadConfig(base).kafkaSecurity).toEqual({});
  });

  it.each([
    [{ KAFKA_SASL_MECHANISM: 'gssapi' }, /^KAFKA_SASL_MECHANISM: /],
    [{ KAFKA_SASL_MECHANISM: 'plain', KAFKA_SASL_USERNAME: 'u' }, /^KAFKA_SASL_PASSWORD: is required/],
    [{ KAFKA_SASL_MECHANISM: 'plain', KAFKA_SASL_PASSWORD: 'p' }, /^KAFKA_SASL_USERNAME: is required/],
    [{ KAFKA_SSL: 'yes' }, /^KAFKA_SSL: /],
    [{ KAFKA_SSL_CA_FILE: '/etc/ca.pem' }, /^KAFKA_SSL: must be true/],
    [{ KAFKA_SSL: 'true', KAFKA_SSL_CERT_FILE: '/etc/c.pem' }, /^KAFKA_SSL_KEY_FILE: /],
    [{ KAFKA_SSL: 'true', KAFKA_SSL_CA_FILE: '/nonexistent/ca.pem' }, /^KAFKA_SSL_CA_FILE: cannot read/],
    [{ SCHEMA_REGISTRY_USERNAME: 'u' }, /^SCHEMA_REGISTRY_PASSWORD: basic auth needs both/],
    [{ REDIS_URL: 'http://x' }, /^REDIS_URL: /],
  ])('stops start-up naming the bad setting (%o)', (override, message) => {
    expect(() => loadConfig({ ...base, ...override })).toThrow(message);
  });

  it('gives the audit commands the same Kafka and registry security', () => {
    const config = loadAuditConfig(
      {},
      {
        KAFKA_BROKERS: '127.0.0.1:9092',
        KAFKA_SSL: 'true',
        KAFKA_SASL_MECHANISM: 'scram-sha-256',
        KAFKA_SASL_USERNAME: 'auditor',
        KAFKA_SASL_PASSWORD_FILE: file('audit-pw', 'secret\n'),
        SCHEMA_REGISTRY_USERNAME: 'auditor',
        SCHEMA_REGISTRY_PASSWORD: 'rpw',
        // Secrets of the service alone, out of an auditor's reach: never read by the audit commands.
        CONSOLE_TOKEN_FILE: join(dir, 'missing-console-token'),
        VENDOR_API_KEY_FILE: join(dir, 'missing-vendor-key'),
      },
    );
    expect(config.kafkaSecurity).toEqual({
      ssl: true,
      sasl: { mechanism: 'scram-sha-256', username: 'auditor', password: 'secret' },
    });
    expect(config.registryAuth).toEqual({ username: 'auditor', password: 'rpw' });
  });
});

describe('a Redis password over plain redis:// is refused at start-up (issue 50, finding 12)', () => {
  const redis = { ALLOW_PLAINTEXT_REDIS: 'true' };
  const password = 'redis-password-0123456789';

  it.each([
    [
      { REDIS_URL: 'redis://redis.example:6379', REDIS_PASSWORD: password },
      /^REDIS_PASSWORD: is sent in clear/,
    ],
    [
      { REDIS_URL: 'redis://redis.example:6379', REDIS_PASSWORD_FILE: file('redis-pw', `${password}\n`) },
      /^REDIS_PASSWORD_FILE: is sent in clear/,
    ],
    [{ REDIS_URL: `redis://:${password}@10.0.0.7:6379` }, /^REDIS_URL: holds a password sent in clear/],
    [
      { REDIS_URL: `redis://gateway:${password}@redis.example` },
      /^REDIS_URL: holds a password sent in clear/,
    ],
  ])('%o', (override, message) => {
    let caught: unknown;
    try {
      loadConfig({ ...base, ...redis, ...override });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(Error);
    expect((caught as Error).message).toMatch(message);
    expect((caught as Error).message).not.toContain(password);
  });

  it('accepts rediss://, a server on this host, and ALLOW_INSECURE_TRANSPORT=true (local use)', () => {
    for (const url of [
      'rediss://redis.example:6380',
      'redis://127.0.0.1:6379',
      'redis://127.0.0.53:6379',
      'redis://localhost:6379',
      'redis://[::1]:6379',
    ]) {
      expect(loadConfig({ ...base, ...redis, REDIS_URL: url, REDIS_PASSWORD: password }).REDIS_PASSWORD).toBe(
        password,
      );
    }
    expect(
      loadConfig({
        ...base,
        ...redis,
        REDIS_URL: 'redis://redis.example:6379',
        REDIS_PASSWORD: password,
        ALLOW_INSECURE_TRANSPORT: 'true',
      }).REDIS_PASSWORD,
    ).toBe(password);
    // No password, nothing to leak.
    expect(loadConfig({ ...base, ...redis, REDIS_URL: 'redis://redis.example:6379' }).REDIS_URL).toBe(
      'redis://redis.example:6379',
    );
  });
});
