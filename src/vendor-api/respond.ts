import type { z } from 'zod';
import { VendorError, type VendorCall } from './errors.js';
import { toParamsIssues } from '../contract/param-rules/issues.js';
import { jsonErrorPosition } from '../json-position.js';
import { parseRetryAfter } from './retry-after.js';
import type { VendorResponse, VendorResult } from './types.js';

export interface InterpretOptions {
  /** The spec defines a 404 with the error envelope as "nothing found" for this call. */
  notFoundIsAnswer?: boolean;
  /** Reshapes the raw JSON before parsing (a documented quirk); `raw` keeps the original. */
  prepare?: (raw: unknown) => unknown;
}

/** Turns the vendor's answer into a VendorResult, or throws the matching VendorError. */
export function interpret<S extends z.ZodType>(
  call: VendorCall,
  response: VendorResponse,
  schema: S,
  options: InterpretOptions = {},
): VendorResult<z.output<S>> {
  if (response.status >= 200 && response.status < 300) return okResult(call, response, schema, options);
  const envelope = readErrorEnvelope(response.text);
  // Only the vendor's own envelope counts as "nothing found": a bare 404 from a proxy or a
  // wrong base URL must not turn into a quiet not_found result.
  if (response.status === 404 && options.notFoundIsAnswer === true && envelope !== undefined) {
    return {
      outcome: 'not_found',
      httpStatus: 404,
      body: undefined,
      raw: envelope.raw,
      ...resultMeta(envelope.raw),
    };
  }
  throw httpError(call, response, envelope);
}

function okResult<S extends z.ZodType>(
  call: VendorCall,
  response: VendorResponse,
  schema: S,
  options: InterpretOptions,
): VendorResult<z.output<S>> {
  let raw: unknown;
  try {
    raw = JSON.parse(response.text);
  } catch (error) {
    // Not kept as the cause: V8's message quotes the body, which may hold personal data.
    throw badResponse(call, response.status, `the body is not JSON${jsonErrorPosition(error)}`, undefined);
  }
  const parsed = schema.safeParse(options.prepare ? options.prepare(raw) : raw);
  if (!parsed.success) {
    const paths = [...new Set(toParamsIssues(parsed.error.issues).map((issue) => issue.path || '(root)'))];
    throw badResponse(
      call,
      response.status,
      `the body does not match the documented shape at ${paths.slice(0, 5).join(', ')}`,
      parsed.error,
    );
  }
  return { outcome: 'ok', httpStatus: response.status, body: parsed.data, raw, ...resultMeta(raw) };
}

interface ErrorEnvelope {
  raw: unknown;
  id: string | undefined;
  reason: string | undefined;
  message: string | undefined;
}

/** vendor-api.md "Errors": `{ id, version?, error: { statusCode, error, message } }`. */
function readErrorEnvelope(text: string): ErrorEnvelope | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isRecord(raw) || !isRecord(raw.error)) return undefined;
  return {
    raw,
    id: stringOrUndefined(raw.id),
    reason: stringOrUndefined(raw.error.error),
    message: stringOrUndefined(raw.error.message),
  };
}

function httpError(
  call: VendorCall,
  response: VendorResponse,
  envelope: ErrorEnvelope | undefined,
): VendorError {
  const status = response.status;
  // The reason phrase is shown only when it looks like one; the vendor's free text
  // (`error.message`) stays in vendorMessage, out of messages and logs.
  const reason =
    envelope?.reason !== undefined && /^[A-Za-z -]{1,40}$/.test(envelope.reason) ? ` ${envelope.reason}` : '';
  const text = `vendor answered ${status}${reason} to ${call.route} (${call.operation})`;
  const common = { call, httpStatus: status, vendorId: envelope?.id, vendorMessage: envelope?.message };
  if (status === 401 || status === 403) {
    return new VendorError('unauthorized', `${text}; check the API key and its permissions`, {
      ...common,
      code: 'VENDOR_UNAUTHORIZED',
      retryable: false,
    });
  }
  const retryAfterMs = parseRetryAfter(response.headers['retry-after']);
  if (status === 429) {
    return new VendorError('upstream_unavailable', text, {
      ...common,
      code: 'VENDOR_RATE_LIMITED',
      retryable: true,
      retryAfterMs,
    });
  }
  if (status >= 500) {
    return new VendorError('upstream_unavailable', text, {
      ...common,
      code: 'VENDOR_SERVER_ERROR',
      retryable: true,
      retryAfterMs,
    });
  }
  return new VendorError('upstream_rejected', text, {
    ...common,
    code: 'VENDOR_HTTP_ERROR',
    retryable: false,
  });
}

function badResponse(call: VendorCall, status: number, what: string, cause: unknown): VendorError {
  return new VendorError(
    'internal',
    `vendor answered ${status} to ${call.route} (${call.operation}) but ${what}`,
    {
      code: 'VENDOR_BAD_RESPONSE',
      call,
      httpStatus: status,
      cause,
      retryable: false,
    },
  );
}

/** id, version and metadata.timeSpent of any vendor body (and `metada`, see vehicle-async). */
export function resultMeta(raw: unknown): { vendorId?: string; version?: string; timeSpent?: number } {
  if (!isRecord(raw)) return {};
  const meta: { vendorId?: string; version?: string; timeSpent?: number } = {};
  const id = stringOrUndefined(raw.id);
  const version = stringOrUndefined(raw.version);
  const metadata = isRecord(raw.metadata) ? raw.metadata : isRecord(raw.metada) ? raw.metada : undefined;
  const timeSpent = metadata?.timeSpent;
  if (id !== undefined) meta.vendorId = id;
  if (version !== undefined) meta.version = version;
  if (typeof timeSpent === 'number') meta.timeSpent = timeSpent;
  return meta;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function stringOrUndefined(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
