import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';

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
  ])('stops start-up naming the bad setting (%o)', (override, message) => {
    expect(() => loadConfig({ ...base, ...override })).toThrow(message);
  });
});

describe('console settings', () => {
  it('is off without a token, and takes tokens from variables or files', async () => {
    expect(loadConfig(base).console).toBeUndefined();
    expect(loadConfig({ ...base, CONSOLE_TOKEN: 'read-only-token-123456' }).console).toEqual({
      readOnly: 'read-only-token-123456',
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
      readOnly: 'read-only-token-123456',
      operator: 'operator-token-from-file',
    });
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
  ])('refuses %o', (env, message) => {
    expect(() => loadConfig({ ...base, ...env })).toThrow(message);
  });
});
