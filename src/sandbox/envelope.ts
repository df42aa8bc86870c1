import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { FastifyRequest } from 'fastify';

/** Per-request state the hooks and handlers share (see hooks.ts). */
export interface RequestState {
  startedAt: number;
  /** Operation name of the route; undefined for admin paths and unknown paths. */
  operation: string | undefined;
  /** Epoch second of arrival: the window the call is counted in. */
  second: number;
  /** Epoch milliseconds of arrival: for the sliding one-second maximum. */
  arrivedAtMs: number;
  /** operation + ':' + sha256 prefix of the normalised billable input; set by the handler. */
  fingerprint: string | undefined;
  /** True when a fault was injected (not billed). */
  injected: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    sandboxState: RequestState;
  }
}

export function newId(): string {
  return randomUUID();
}

/** Milliseconds since the request arrived, with two decimals: `metadata.timeSpent`. */
export function timeSpent(request: FastifyRequest): number {
  return Math.round((performance.now() - request.sandboxState.startedAt) * 100) / 100;
}

export interface ErrorBody {
  id: string;
  version?: string;
  error: { statusCode: number; error: string; message: string };
}

export function errorBody(statusCode: number, message: string, version?: string): ErrorBody {
  const error = { statusCode, error: STATUS_CODES[statusCode] ?? 'Error', message };
  return version === undefined ? { id: newId(), error } : { id: newId(), version, error };
}

/** Thrown by handlers; the error handler turns it into the error envelope. */
export class SandboxHttpError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
    this.name = 'SandboxHttpError';
  }
}

export function badRequest(message: string): SandboxHttpError {
  return new SandboxHttpError(400, message);
}

/** The vehicle lookups carry `version` in their error bodies (spec, "Errors"). */
const ERROR_VERSION_BY_OPERATION: Readonly<Record<string, string>> = {
  vehicle: 'v3',
  'vehicle-async': 'v3Async',
  'vehicle-async-query': 'v3Async',
};

export function errorVersionOf(operation: string | undefined): string | undefined {
  return operation === undefined ? undefined : ERROR_VERSION_BY_OPERATION[operation];
}

/** The common success envelope: `id`, `version`, `data`, `metadata.timeSpent`. */
export function envelope(
  request: FastifyRequest,
  version: string,
  data: unknown,
  metadata: object = {},
): object {
  return { id: newId(), version, data, metadata: { ...metadata, timeSpent: timeSpent(request) } };
}

/** Reads one query parameter as a single string: undefined when absent, 400 when repeated. */
export function singleParam(query: unknown, name: string): string | undefined {
  const value = (query as Record<string, unknown>)[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw badRequest(`parameter '${name}' must be given once`);
  return value;
}
