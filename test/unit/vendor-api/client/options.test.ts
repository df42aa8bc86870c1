import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../../src/errors.js';
import { createVendorClient } from '../../../../src/vendor-api/client.js';
import type { VendorClientOptions } from '../../../../src/vendor-api/options.js';
import { parseRetryAfter } from '../../../../src/vendor-api/retry-after.js';

const VALID: VendorClientOptions = { baseUrl: 'https://api.vendor.example', apiKey: 'secret-key' };

function configErrorOf(options: unknown): ConfigError {
  try {
    void createVendorClient(options as VendorClientOptions).close();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

describe('createVendorClient options', () => {
  it('accepts the minimal options', async () => {
    await createVendorClient(VALID).close();
  });

  it.each([
    [
      { apiKey: 'k' },
      'vendor.baseUrl: is required: the vendor base address, e.g. https://api.vendor.example',
    ],
    [
      { ...VALID, baseUrl: 'api.vendor.example' },
      'vendor.baseUrl: must be an absolute http(s) URL without query or fragment',
    ],
    [{ ...VALID, baseUrl: 'ftp://api.vendor.example' }, 'vendor.baseUrl: must be an absolute http(s) URL'],
    [
      { ...VALID, baseUrl: 'https://api.vendor.example/?v=1' },
      'vendor.baseUrl: must be an absolute http(s) URL without query or fragment',
    ],
    [{ baseUrl: VALID.baseUrl }, 'vendor.apiKey: is required: the vendor API key'],
    [{ ...VALID, apiKey: '' }, 'vendor.apiKey: must not be empty'],
    [{ ...VALID, headersTimeoutMs: -1 }, 'vendor.headersTimeoutMs: must be greater than 0 (milliseconds)'],
    [{ ...VALID, connections: 0 }, 'vendor.connections: must be at least 1'],
    [{ ...VALID, classifyUpload: 'urls' }, 'vendor.classifyUpload: must be "multipart" or "base64"'],
    [{ ...VALID, headerTimeoutMs: 5 }, 'unknown option headerTimeoutMs (did you mean headersTimeoutMs?)'],
    [
      { ...VALID, selfieDownload: { maxSize: 5 } },
      'vendor.selfieDownload: unknown option maxSize; allowed: maxBytes, timeoutMs, allow, lookup',
    ],
  ])('refuses %j with a message naming the fix', (options, message) => {
    expect(configErrorOf(options).message).toContain(message);
  });

  it('refuses an API key with a trailing newline without printing the key', () => {
    const error = configErrorOf({ ...VALID, apiKey: 'secret-key\n' });
    expect(error.message).toContain('check for a trailing newline');
    expect(error.message).not.toContain('secret-key');
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');

  it.each([
    ['120', 120_000],
    ['0', 0],
    [' 5 ', 5000],
    ['Thu, 01 Jan 2026 00:00:30 GMT', 30_000],
    ['Wed, 31 Dec 2025 23:00:00 GMT', 0],
  ])('reads %j as %i ms', (value, expected) => {
    expect(parseRetryAfter(value, now)).toBe(expected);
  });

  it.each([undefined, '', 'soon', '-5', '1.5'])('ignores %j', (value) => {
    expect(parseRetryAfter(value, now)).toBeUndefined();
  });
});
