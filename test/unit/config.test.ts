import { describe, expect, it } from 'vitest';
import { commitSpacing, devEnvironment, loadConfig } from '../../src/config.js';

const base = {
  KAFKA_BROKERS: '127.0.0.1:9092',
  VENDOR_BASE_URL: 'http://127.0.0.1:8090',
  ALLOW_INSECURE_VENDOR: 'true',
  VENDOR_API_KEY: 'k',
};

describe('loadConfig', () => {
  it('applies defaults and per-operation limit overrides', () => {
    const config = loadConfig({
      ...base,
      VENDOR_RATE_PER_SECOND: '50',
      VENDOR_LIMITS: '{"vehicle":{"ratePerSecond":5,"spendCapPerHour":100}}',
    });
    expect(config.TOPIC_PREFIX).toBe('verification');
    expect(config.KAFKA_BROKERS).toEqual(['127.0.0.1:9092']);
    expect(config.limits.vehicle).toEqual({ ratePerSecond: 5, maxConcurrent: 20, spendCapPerHour: 100 });
    expect(config.limits['lawsuits-summary']).toEqual({ ratePerSecond: 50, maxConcurrent: 20 });
    expect(Object.isFrozen(config)).toBe(true);
  });

  it.each([
    [{ KAFKA_BROKERS: '' }, /^KAFKA_BROKERS: /],
    [{ KAFKA_BROKERS: 'localhost' }, /^KAFKA_BROKERS: .*host:port/],
    [{ VENDOR_BASE_URL: 'ftp://x' }, /^VENDOR_BASE_URL: /],
    [{ VENDOR_API_KEY: undefined }, /^VENDOR_API_KEY: is required$/],
    [{ KAFKA_BROKERS: undefined }, /^KAFKA_BROKERS: is required/],
    [{ MAX_IN_FLIGHT: '0' }, /^MAX_IN_FLIGHT: /],
    [{ VENDOR_LIMITS: '{nope' }, /^VENDOR_LIMITS: is not valid JSON/],
    [{ VENDOR_LIMITS: '{"teleport":{}}' }, /^VENDOR_LIMITS: /],
    [{ VENDOR_LIMITS: '{"vehicle":{"ratePerSecond":-1}}' }, /^VENDOR_LIMITS: vehicle\.ratePerSecond: /],
    [{ WEBHOOK_PUBLIC_URL: 'http://127.0.0.1:8080' }, /^WEBHOOK_SECRET: is required/],
    [{ HTTP_PORT: '9000', ADMIN_PORT: '9000' }, /^ADMIN_PORT: must differ from HTTP_PORT/],
    [{ COMMIT_MAX_INTERVAL_MS: '5' }, /^COMMIT_MAX_INTERVAL_MS: must be at least COMMIT_INTERVAL_MS \(10\)/],
    [{ COMMIT_MAX_INTERVAL_MS: 'soon' }, /^COMMIT_MAX_INTERVAL_MS: /],
    [{ ANSWER_GATHER_MAX_MS: '-1' }, /^ANSWER_GATHER_MAX_MS: /],
    [{ KAFKA_CLIENT_DEBUG: 'eos; rm -rf' }, /^KAFKA_CLIENT_DEBUG: must be a comma-separated list/],
    [{ ANSWER_GATHER_MAX_MS: '2.5' }, /^ANSWER_GATHER_MAX_MS: /],
    [{ OUTPUT_RETENTION_MS: '0' }, /^OUTPUT_RETENTION_MS: must be a positive number of milliseconds/],
    [{ OUTPUT_RETENTION_MS: '-1' }, /^OUTPUT_RETENTION_MS: must be a positive .*-1 is no longer accepted/],
    [{ REQUEST_RETENTION_MS: '-2' }, /^REQUEST_RETENTION_MS: /],
    [{ AUDIT_RETENTION_MS: '-1' }, /^AUDIT_RETENTION_MS: must be a positive/],
    [
      { OUTPUT_RETENTION_MS: '2000', AUDIT_RETENTION_MS: '1000' },
      /^AUDIT_RETENTION_MS: must be at least OUTPUT_RETENTION_MS \(2000\)/,
    ],
    [{ HTTP_PORT: '70000' }, /^HTTP_PORT: /],
    [{ ADMIN_PORT: '-1' }, /^ADMIN_PORT: /],
    [{ RESULT_MAX_BYTES: String(4 * 1024 * 1024) }, /^RESULT_MAX_BYTES: must leave room for headers/],
    [{ VENDOR_RATE_PER_SECOND: '0' }, /^VENDOR_RATE_PER_SECOND: /],
    [{ VENDOR_CONNECTIONS: '2000' }, /^VENDOR_CONNECTIONS: /],
    // 0 would be no gate at all in memory, and a refused PX 0 in Redis (every webhook a 503).
    [{ WEBHOOK_FETCH_INTERVAL_MS: '0' }, /^WEBHOOK_FETCH_INTERVAL_MS: /],
    [{ MEMORY_DEDUPE_MAX_ENTRIES: '999' }, /^MEMORY_DEDUPE_MAX_ENTRIES: /],
    [{ MEMORY_DEDUPE_MAX_ENTRIES: 'many' }, /^MEMORY_DEDUPE_MAX_ENTRIES: /],
    [
      { MEMORY_DEDUPE_MAX_ENTRIES: '4000', REPLICA_WINDOW: '5000' },
      /^MEMORY_DEDUPE_MAX_ENTRIES: must be at least REPLICA_WINDOW \(5000\)/,
    ],
    [{ VENDOR_BASE_URL: 'https://api.vendor.example/?tenant=1' }, /^VENDOR_BASE_URL: must be an absolute/],
    [
      { VENDOR_API_KEY: 'secret-key\n' },
      /^VENDOR_API_KEY: must be visible ASCII characters only.*newline\)$/,
    ],
  ])('stops start-up naming the bad setting (%o)', (override, message) => {
    expect(() => loadConfig({ ...base, ...override })).toThrow(message);
  });

  it("waits out a group coordinator's failover: 30 s sessions and transactions by default, no client debug", () => {
    const config = loadConfig(base);
    expect(config.KAFKA_SESSION_TIMEOUT_MS).toBe(30_000);
    expect(config.KAFKA_TRANSACTION_TIMEOUT_MS).toBe(30_000);
    expect(config.KAFKA_CLIENT_DEBUG).toBeUndefined();
    expect(loadConfig({ ...base, KAFKA_CLIENT_DEBUG: 'eos,cgrp' }).KAFKA_CLIENT_DEBUG).toBe('eos,cgrp');
  });

  it('reads a blank number setting as not given: its default, never 0', () => {
    const blank = [
      'HTTP_PORT',
      'ADMIN_PORT',
      'OUTPUT_RETENTION_MS',
      'REQUEST_RETENTION_MS',
      'WEBHOOK_FETCH_INTERVAL_MS',
      'VENDOR_RATE_PER_SECOND',
      'HEAP_GROWTH_PERCENT',
      'MAX_JSON_DEPTH',
      'RESULT_MAX_BYTES',
      'MEMORY_DEDUPE_MAX_ENTRIES',
    ] as const;
    const config = loadConfig({ ...base, ...Object.fromEntries(blank.map((name) => [name, ''])) });
    const defaults = loadConfig(base);
    for (const name of blank) expect([name, config[name]]).toEqual([name, defaults[name]]);
    expect(config.HTTP_PORT).toBe(8080);
    expect(config.OUTPUT_RETENTION_MS).toBe(30 * 24 * 3600 * 1000);
    expect(config.AUDIT_RETENTION_MS).toBe(400 * 24 * 3600 * 1000);
    expect(config.WEBHOOK_FETCH_INTERVAL_MS).toBe(10_000);
  });

  it('reads a blank listen address as not given (its default), never the empty string', () => {
    const config = loadConfig({ ...base, HTTP_HOST: '', ADMIN_HOST: '' });
    expect([config.HTTP_HOST, config.ADMIN_HOST]).toEqual(['0.0.0.0', '127.0.0.1']);
  });

  it.each(['LOG_LEVEL', 'TOPIC_PREFIX', 'CREATE_TOPICS', 'VENDOR_LIMITS'])(
    'refuses another setting given blank, naming it (%s)',
    (name) => {
      expect(() => loadConfig({ ...base, [name]: '' })).toThrow(new RegExp(`^${name}\\b`));
    },
  );
});

describe('commit spacing', () => {
  it('gathers answers for up to 20 ms by default; 0 turns it off', () => {
    expect(loadConfig(base).ANSWER_GATHER_MAX_MS).toBe(20);
    expect(loadConfig({ ...base, ANSWER_GATHER_MAX_MS: '0' }).ANSWER_GATHER_MAX_MS).toBe(0);
  });

  it('runs from COMMIT_INTERVAL_MS to 100 ms by default, or to COMMIT_MAX_INTERVAL_MS', () => {
    expect(commitSpacing(loadConfig(base))).toEqual({ commitIntervalMs: 10, maxCommitIntervalMs: 100 });
    expect(commitSpacing(loadConfig({ ...base, COMMIT_MAX_INTERVAL_MS: '' }))).toEqual({
      commitIntervalMs: 10,
      maxCommitIntervalMs: 100,
    });
    expect(commitSpacing(loadConfig({ ...base, COMMIT_MAX_INTERVAL_MS: '10' }))).toEqual({
      commitIntervalMs: 10,
      maxCommitIntervalMs: 10,
    });
  });

  it('keeps a longer COMMIT_INTERVAL_MS given alone as it was: a fixed spacing', () => {
    expect(commitSpacing(loadConfig({ ...base, COMMIT_INTERVAL_MS: '250' }))).toEqual({
      commitIntervalMs: 250,
      maxCommitIntervalMs: 250,
    });
  });
});

describe('console settings', () => {
  it('marks cookies Secure only with CONSOLE_SECURE_COOKIES=true, and names the setting for a bad value', () => {
    expect(loadConfig(base).CONSOLE_SECURE_COOKIES).toBe(false);
    expect(loadConfig({ ...base, CONSOLE_SECURE_COOKIES: 'true' }).CONSOLE_SECURE_COOKIES).toBe(true);
    expect(() => loadConfig({ ...base, CONSOLE_SECURE_COOKIES: 'maybe' })).toThrow(
      /^CONSOLE_SECURE_COOKIES\b/,
    );
  });

  it('is off without a token, and takes tokens from variables or files', async () => {
    expect(loadConfig(base).console).toBeUndefined();
    expect(loadConfig({ ...base, CONSOLE_TOKEN: 'read-only-token-123456' }).console).toEqual({
      tokens: [{ name: 'shared-read-only', role: 'read-only', token: 'read-only-token-123456' }],
    });
    const fs = await import('node:fs');
    const path = await import('node:path');
    const os = await import('node:os');
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'console-token-')), 'token');
    fs.writeFileSync(file, 'operator-token-from-file\n');
    const config = loadConfig({
      ...base,
      CONSOLE_TOKEN: 'read-only-token-123456',
      CONSOLE_OPERATOR_TOKEN_FILE: file,
    });
    expect(config.console).toEqual({
      tokens: [
        { name: 'shared-read-only', role: 'read-only', token: 'read-only-token-123456' },
        { name: 'shared-operator', role: 'operator', token: 'operator-token-from-file' },
      ],
    });
  });

  it('gives each operator a named token from CONSOLE_TOKENS_FILE, beside the shared ones (issue 39, N4)', async () => {
    const fs = await import('node:fs');
    const path = await import('node:path');
    const os = await import('node:os');
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'console-tokens-')), 'tokens');
    fs.writeFileSync(
      file,
      '# name:role:token\nmaria.souza:operator:0f1e2d3c4b5a69788796a5b4c3d2e1f0\n\nana:read-only:9a8b7c6d5e4f30211203f4e5d6c7b8a9\n',
    );
    const config = loadConfig({
      ...base,
      CONSOLE_TOKEN: 'read-only-token-123456',
      CONSOLE_TOKENS_FILE: file,
    });
    expect(config.console?.tokens.map(({ name, role }) => [name, role])).toEqual([
      ['shared-read-only', 'read-only'],
      ['maria.souza', 'operator'],
      ['ana', 'read-only'],
    ]);
    expect(loadConfig({ ...base, CONSOLE_TOKENS_FILE: file }).console?.tokens).toHaveLength(2);
  });

  it('requires named tokens only with CONSOLE_REQUIRE_NAMED_TOKENS=true, which needs CONSOLE_TOKENS (issue 50, finding 12)', () => {
    const named = { CONSOLE_TOKENS: 'maria.souza:operator:0f1e2d3c4b5a69788796a5b4c3d2e1f0' };
    expect(loadConfig({ ...base, ...named }).console?.namedOnly).toBeUndefined();
    const config = loadConfig({
      ...base,
      ...named,
      CONSOLE_TOKEN: 'read-only-token-123456',
      CONSOLE_REQUIRE_NAMED_TOKENS: 'true',
    });
    expect(config.console?.namedOnly).toBe(true);
    expect(() =>
      loadConfig({ ...base, CONSOLE_TOKEN: 'read-only-token-123456', CONSOLE_REQUIRE_NAMED_TOKENS: 'true' }),
    ).toThrow(/^CONSOLE_REQUIRE_NAMED_TOKENS: needs CONSOLE_TOKENS/);
    expect(() => loadConfig({ ...base, ...named, CONSOLE_REQUIRE_NAMED_TOKENS: 'yes' })).toThrow(
      /^CONSOLE_REQUIRE_NAMED_TOKENS\b/,
    );
  });

  it.each([
    [{ CONSOLE_TOKEN: 'short' }, /^CONSOLE_TOKEN: must be at least 16/],
    [
      { CONSOLE_OPERATOR_TOKEN: 'operator-token-1234567' },
      /^CONSOLE_TOKEN: is required with CONSOLE_OPERATOR_TOKEN/,
    ],
    [
      { CONSOLE_TOKEN: 'same-token-123456789', CONSOLE_OPERATOR_TOKEN: 'same-token-123456789' },
      /^CONSOLE_OPERATOR_TOKEN: must differ/,
    ],
    [
      { CONSOLE_TOKEN_FILE: '/nonexistent/console-token' },
      /^CONSOLE_TOKEN_FILE: cannot read the file \/nonexistent\/console-token \(ENOENT\)/,
    ],
    [
      { CONSOLE_TOKEN: 'read-only-token-123456', CONSOLE_TOKEN_FILE: '/x' },
      /^CONSOLE_TOKEN_FILE: cannot be set together with CONSOLE_TOKEN/,
    ],
    [{ CONSOLE_TOKENS: 'maria:operator' }, /^CONSOLE_TOKENS: line 1: expected name:role:token/],
    [{ CONSOLE_TOKENS: 'maria:admin:0f1e2d3c4b5a69788796a5b4c3d2e1f0' }, /^CONSOLE_TOKENS: line 1: the role/],
    [{ CONSOLE_TOKENS: 'maria:operator:aaaaaaaaaaaaaaaaaaaa' }, /^CONSOLE_TOKENS: line 1: the token is weak/],
    [
      { CONSOLE_TOKENS: 'ma ria:operator:0f1e2d3c4b5a69788796a5b4c3d2e1f0' },
      /^CONSOLE_TOKENS: line 1: a name/,
    ],
    [
      {
        CONSOLE_TOKENS:
          'a:operator:0f1e2d3c4b5a69788796a5b4c3d2e1f0\na:read-only:9a8b7c6d5e4f30211203f4e5d6c7b8a9',
      },
      /^CONSOLE_TOKENS: the name a is given twice/,
    ],
    [
      {
        CONSOLE_TOKENS:
          'a:operator:0f1e2d3c4b5a69788796a5b4c3d2e1f0\nb:read-only:0f1e2d3c4b5a69788796a5b4c3d2e1f0',
      },
      /^CONSOLE_TOKENS: the token of b is given to another name too/,
    ],
  ])('refuses %o', (env, message) => {
    expect(() => loadConfig({ ...base, ...env })).toThrow(message);
  });
});

describe('listeners', () => {
  it('binds the admin listener (health, metrics, console) to loopback unless told (issue 39, N3)', () => {
    const config = loadConfig(base);
    expect(config.ADMIN_HOST).toBe('127.0.0.1');
    expect(config.HTTP_HOST).toBe('0.0.0.0');
    expect(loadConfig({ ...base, ADMIN_HOST: '0.0.0.0' }).ADMIN_HOST).toBe('0.0.0.0');
  });
});

describe('devEnvironment (npm run dev)', () => {
  it("points at the local stack's default ports", () => {
    const env = devEnvironment({});
    expect(env.KAFKA_BROKERS).toBe('127.0.0.1:9092');
    expect(env.SCHEMA_REGISTRY_URL).toBe('http://127.0.0.1:8081/apis/ccompat/v7');
    expect(env.REDIS_URL).toBe('redis://127.0.0.1:6379');
  });

  it('follows the ports stack/up.sh was given, so dev talks to the stack it started', () => {
    const env = devEnvironment({ KAFKA_PORT: '19092', REGISTRY_PORT: '18081', REDIS_PORT: '16379' });
    expect(env.KAFKA_BROKERS).toBe('127.0.0.1:19092');
    expect(env.SCHEMA_REGISTRY_URL).toBe('http://127.0.0.1:18081/apis/ccompat/v7');
    expect(env.REDIS_URL).toBe('redis://127.0.0.1:16379');
  });

  it('lets addresses given outright win over the stack ports, and then ignores those ports', () => {
    const env = devEnvironment({ KAFKA_PORT: '19092', KAFKA_BROKERS: 'kafka.internal:9092' });
    expect(env.KAFKA_BROKERS).toBe('kafka.internal:9092');
    expect(devEnvironment({ REDIS_PORT: 'n/a', REDIS_URL: 'redis://cache:6379' }).REDIS_URL).toBe(
      'redis://cache:6379',
    );
  });

  it.each([
    ['KAFKA_PORT', 'abc'],
    ['REGISTRY_PORT', '0'],
    ['REDIS_PORT', '70000'],
    ['KAFKA_PORT', '90 92'],
  ])('refuses %s=%s, naming the setting', (name, value) => {
    expect(() => devEnvironment({ [name]: value })).toThrow(new RegExp(`^${name}: must be a port number`));
  });
});
