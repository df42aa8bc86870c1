import type { z } from 'zod';
import { requestEnvelopeSchema, type RequestEnvelope } from '../contract/envelopes.js';
import type { Operation } from '../contract/operations.js';
import type { ParamsOf } from '../contract/params.js';
import { InvalidRequestError, toAppError, type AppError } from '../errors.js';
import type { RequestLogger } from '../observability/logger.js';
import { rawRequest } from '../producers/dead-letter-record.js';
import { decodeWhenRegistryAnswers, type DecodeDeps } from './decode-wait.js';
import { checkRequestBytes } from './value-guard.js';

/**
 * A request message's bytes to a checked envelope and params, or the reason it is a dead
 * letter with what of the request can be carried: the bounds on the bytes first (before any
 * parsing), then decoding (waiting for the registry), the envelope and the operation's params.
 */
export interface ReadDeps extends DecodeDeps {
  /** The operation's schema (contract/params.ts): the one place params are checked. */
  parseParams<O extends Operation>(
    operation: O,
    params: unknown,
  ): { ok: true; value: ParamsOf<O> } | { ok: false; message: string };
  maxRequestBytes: number;
  /** Deeper JSON is dead-lettered before it is parsed (MAX_JSON_DEPTH). */
  maxJsonDepth: number;
  /** Raw bytes a dead letter carries whole; above, a prefix with sha256 and length. */
  maxRawBytes: number;
}

export type ReadResult<O extends Operation> =
  | { ok: true; envelope: RequestEnvelope; params: ParamsOf<O> }
  | { ok: false; error: AppError; request: Record<string, unknown>; requestId: string | null };

export async function readRequest<O extends Operation>(
  deps: ReadDeps,
  operation: O,
  value: Buffer | null,
  signal: AbortSignal,
  log: RequestLogger,
): Promise<ReadResult<O> | 'aborted'> {
  const raw = (): Record<string, unknown> => rawRequest(value, deps.maxRawBytes);
  const unreadable = (reason: string): ReadResult<O> => ({
    ok: false,
    error: new InvalidRequestError(reason),
    request: raw(),
    requestId: null,
  });
  if (value === null) return unreadable('message has no value');
  const reason = checkBytes(deps, value);
  if (reason !== undefined) return unreadable(reason);
  const read = await decodeWhenRegistryAnswers(deps, value, signal, log);
  if (read === 'aborted') return read;
  if (!read.ok) return { ok: false, error: toAppError(read.error), request: raw(), requestId: null };
  return checkEnvelope(deps, operation, read.value, raw);
}

/** Why the bytes cannot be read at all, checked before any parsing; undefined when they can. */
function checkBytes(deps: ReadDeps, value: Buffer): string | undefined {
  if (value.length === 0) return 'message has no value';
  if (value.length > deps.maxRequestBytes) {
    return `value of ${value.length} bytes exceeds MAX_REQUEST_BYTES (${deps.maxRequestBytes})`;
  }
  return checkRequestBytes(value, deps.maxJsonDepth);
}

function checkEnvelope<O extends Operation>(
  deps: ReadDeps,
  operation: O,
  decoded: unknown,
  raw: () => Record<string, unknown>,
): ReadResult<O> {
  const parsed = requestEnvelopeSchema.safeParse(decoded);
  const asObject = isObject(decoded) ? decoded : raw();
  if (!parsed.success) {
    return {
      ok: false,
      error: new InvalidRequestError(`envelope: ${describeIssues(parsed.error)}`),
      request: asObject,
      requestId: requestIdOf(decoded),
    };
  }
  const params = deps.parseParams(operation, parsed.data.params);
  if (!params.ok) {
    return {
      ok: false,
      error: new InvalidRequestError(`params: ${params.message}`),
      request: asObject,
      requestId: parsed.data.requestId,
    };
  }
  return { ok: true, envelope: parsed.data, params: params.value };
}

/** The requestId of an invalid envelope, when it has a usable one. */
function requestIdOf(decoded: unknown): string | null {
  if (!isObject(decoded) || typeof decoded.requestId !== 'string') return null;
  const { length } = decoded.requestId;
  return length > 0 && length <= 128 ? decoded.requestId : null;
}

export function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => (issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message))
    .join('; ');
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
