import type { LookupFunction } from 'node:net';
import { z } from 'zod';
import { ConfigError } from '../errors.js';
import { formatIssues, toParamsIssues } from '../contract/param-rules/issues.js';
import type { SelfieDownloadOptions } from './selfie-download.js';
import { isAllowListEntry } from './selfie-guard.js';

/**
 * Options of createVendorClient, validated once at construction (the platformatic/kafka and
 * undici habit): a wrong option stops start-up with a message naming it and the fix, instead
 * of failing on the first paid call. Values come from src/config.ts; nothing here reads
 * process.env.
 */
/** One default for the client and VENDOR_CONNECTIONS (config.ts), so both behave alike. */
export const DEFAULT_VENDOR_CONNECTIONS = 64;
export const MAX_VENDOR_CONNECTIONS = 1024;
export const BASE_URL_RULE =
  'must be an absolute http(s) URL without query or fragment, e.g. https://api.vendor.example';

/**
 * Refuses a key that cannot be sent in the Authorization header, saying why and never quoting
 * it: the client's option and VENDOR_API_KEY (config.ts) both check with it.
 */
export function checkApiKey(key: string, ctx: z.RefinementCtx): void {
  if (key.length === 0) ctx.addIssue({ code: 'custom', message: 'must not be empty' });
  else if (!/^[\x21-\x7e]+$/.test(key)) {
    ctx.addIssue({
      code: 'custom',
      message: 'must be visible ASCII characters only, no blanks (check for a trailing newline)',
    });
  }
}

export interface VendorClientOptions {
  /** Base address of the vendor API, e.g. https://api.vendor.example (a path prefix is kept). */
  baseUrl: string;
  /** Sent as `Authorization: ApiKey <apiKey>` (vendor-api.md, "Authentication"). */
  apiKey: string;
  /** Most sockets open to the vendor at once (undici `connections`). Default DEFAULT_VENDOR_CONNECTIONS. */
  connections?: number;
  /** Idle keep-alive time of a socket. Default 4000 ms. */
  keepAliveTimeoutMs?: number;
  /** TCP + TLS connect time limit. Default 5000 ms. */
  connectTimeoutMs?: number;
  /** Time limit until the response headers arrive. Default 30000 ms. */
  headersTimeoutMs?: number;
  /** Time limit between two body chunks. Default 30000 ms. */
  bodyTimeoutMs?: number;
  /** Whole-call limit, from sending to the last body byte. Default 30 s. */
  callTimeoutMs?: number;
  /** Largest response body accepted. Default 16 MiB. */
  maxResponseBytes?: number;
  /** How classify uploads a base64 file: multipart (the spec's recommended way) or base64 JSON. */
  classifyUpload?: 'multipart' | 'base64';
  /** Limits of the client-side download of a selfie given by URL. */
  selfieDownload?: {
    maxBytes?: number;
    timeoutMs?: number;
    /** Host names or CIDRs a selfie URL may reach beyond public unicast, by http too. */
    allow?: readonly string[];
    lookup?: LookupFunction;
  };
  userAgent?: string;
}

export interface ResolvedVendorOptions {
  baseUrl: string;
  apiKey: string;
  connections: number;
  keepAliveTimeoutMs: number;
  connectTimeoutMs: number;
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
  callTimeoutMs: number;
  maxResponseBytes: number;
  classifyUpload: 'multipart' | 'base64';
  selfieDownload: SelfieDownloadOptions;
  userAgent: string;
}

const milliseconds = (fallback: number) =>
  z
    .number({ error: 'must be a number of milliseconds' })
    .int('must be a whole number of milliseconds')
    .positive('must be greater than 0 (milliseconds)')
    .default(fallback);

const ALLOWED = [
  'baseUrl',
  'apiKey',
  'connections',
  'keepAliveTimeoutMs',
  'connectTimeoutMs',
  'headersTimeoutMs',
  'bodyTimeoutMs',
  'callTimeoutMs',
  'maxResponseBytes',
  'classifyUpload',
  'selfieDownload',
  'userAgent',
];

const optionsSchema = z.strictObject(
  {
    baseUrl: z
      .string({ error: 'is required: the vendor base address, e.g. https://api.vendor.example' })
      .refine(isBaseUrl, BASE_URL_RULE),
    // The key itself never appears in a message.
    apiKey: z.string({ error: 'is required: the vendor API key' }).superRefine(checkApiKey),
    connections: z
      .number({ error: 'must be a number' })
      .int('must be a whole number')
      .min(1, 'must be at least 1')
      .max(MAX_VENDOR_CONNECTIONS, `must be at most ${MAX_VENDOR_CONNECTIONS}`)
      .default(DEFAULT_VENDOR_CONNECTIONS),
    keepAliveTimeoutMs: milliseconds(4000),
    connectTimeoutMs: milliseconds(5000),
    headersTimeoutMs: milliseconds(30_000),
    bodyTimeoutMs: milliseconds(30_000),
    callTimeoutMs: milliseconds(30_000),
    maxResponseBytes: z
      .number({ error: 'must be a number of bytes' })
      .int('must be a whole number of bytes')
      .positive('must be greater than 0')
      .default(16 * 1024 * 1024),
    classifyUpload: z
      .enum(['multipart', 'base64'], { error: 'must be "multipart" or "base64"' })
      .default('multipart'),
    selfieDownload: z
      .strictObject(
        {
          maxBytes: z
            .number({ error: 'must be a number of bytes' })
            .int('must be a whole number of bytes')
            .positive('must be greater than 0')
            .default(10 * 1024 * 1024),
          timeoutMs: milliseconds(10_000),
          allow: z
            .array(z.string().refine(isAllowListEntry, 'each entry must be a host name or a CIDR'))
            .readonly()
            .default([]),
          lookup: z.custom<LookupFunction>((v) => typeof v === 'function', 'must be a function').optional(),
        },
        {
          error: (issue) =>
            issue.code === 'unrecognized_keys'
              ? `unknown option ${issue.keys.join(', ')}; allowed: maxBytes, timeoutMs, allow, lookup`
              : 'must be an object',
        },
      )
      .default({ maxBytes: 10 * 1024 * 1024, timeoutMs: 10_000, allow: [] }),
    userAgent: z
      .string({ error: 'must be a string' })
      .min(1, 'must not be empty')
      .default('verification-gateway'),
  },
  {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? unknownOptions(issue.keys)
        : 'the vendor client options must be an object',
  },
);

export function resolveVendorOptions(options: VendorClientOptions): ResolvedVendorOptions {
  const result = optionsSchema.safeParse(options);
  if (!result.success) {
    const issues = toParamsIssues(result.error.issues);
    const first = issues.length === 1 ? issues[0]?.path : undefined;
    throw first !== undefined && first !== ''
      ? new ConfigError(`vendor.${first}`, issues[0]?.message ?? '')
      : new ConfigError('vendor', formatIssues(issues));
  }
  return { ...result.data, baseUrl: result.data.baseUrl.replace(/\/+$/, '') };
}

export function isBaseUrl(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  return (
    (url.protocol === 'https:' || url.protocol === 'http:') &&
    url.search === '' &&
    url.hash === '' &&
    !value.includes('#')
  );
}

function unknownOptions(keys: readonly string[]): string {
  const hints = keys.map((key) => {
    const near = ALLOWED.find((name) => editDistance(name.toLowerCase(), key.toLowerCase()) <= 2);
    return near === undefined ? key : `${key} (did you mean ${near}?)`;
  });
  return `unknown option ${hints.join(', ')}; allowed: ${ALLOWED.join(', ')}`;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}
