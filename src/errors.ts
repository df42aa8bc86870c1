/**
 * Error kinds of the contract's dead letters (`error.kind`, see shared/contract.md).
 * A closed union: the runtime maps every failure to exactly one of these.
 */
export const ERROR_KINDS = [
  'invalid_request',
  'upstream_rejected',
  'unauthorized',
  'upstream_unavailable',
  'timeout',
  'result_too_large',
  'internal',
] as const;
export type ErrorKind = (typeof ERROR_KINDS)[number];

export function isErrorKind(value: string): value is ErrorKind {
  return (ERROR_KINDS as readonly string[]).includes(value);
}

/**
 * Every `error.code` a dead letter can carry (shared/contract.md leaves it open; the service
 * closes it here). The vendor client's codes first (src/vendor-api/errors.ts says when each is
 * used), then the service's own.
 */
export const ERROR_CODES = [
  'VENDOR_UNAUTHORIZED', // 401, 403
  'VENDOR_RATE_LIMITED', // 429
  'VENDOR_SERVER_ERROR', // 5xx
  'VENDOR_HTTP_ERROR', // any other non-2xx: 400, 404 (not "nothing found"), 422...
  'VENDOR_TIMEOUT', // connect, headers or body timeout
  'VENDOR_NETWORK', // refused, reset, DNS...
  'VENDOR_BAD_RESPONSE', // a 2xx body that is not the documented JSON
  'VENDOR_RESPONSE_TOO_LARGE', // body above maxResponseBytes
  'VENDOR_ABORTED', // the caller's AbortSignal fired
  'VENDOR_CLIENT_CLOSED', // call after close()
  'VENDOR_CLIENT_ERROR', // the client failed before or while sending (a bug, not the network)
  'SELFIE_DOWNLOAD_FAILED', // the selfie URL could not be fetched
  'SELFIE_UNUSABLE', // the selfie URL answered, but not with a JPEG within the size limit
  'PENDING_STORE_FAILED', // an accepted vehicle search not recorded: now retried in place, kept for older dead letters
  'REQUEST_ID_REUSED', // a requestId already paid for another operation or with other params
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export interface AppErrorOptions {
  cause?: unknown;
  retryable?: boolean;
  httpStatus?: number;
  /** Milliseconds the vendor asked us to wait (Retry-After), when it said. */
  retryAfterMs?: number;
  /** Machine-readable detail that is safe to log (never personal data). */
  details?: Record<string, unknown>;
  /** A stable code naming the failure more precisely than the kind (VENDOR_TIMEOUT...). */
  code?: ErrorCode;
}

/** Base class of every error the service raises on purpose. */
export class AppError extends Error {
  readonly kind: ErrorKind;
  readonly retryable: boolean;
  readonly httpStatus: number | undefined;
  readonly retryAfterMs: number | undefined;
  readonly details: Record<string, unknown> | undefined;
  readonly code: ErrorCode | undefined;

  constructor(kind: ErrorKind, message: string, options: AppErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.kind = kind;
    this.retryable = options.retryable ?? false;
    this.httpStatus = options.httpStatus;
    this.retryAfterMs = options.retryAfterMs;
    this.details = options.details;
    this.code = options.code;
  }
}

/**
 * Our own infrastructure (Redis) failed around a vendor call: neither the request's fault nor
 * news of the vendor's health. Never a dead letter: the runtime tries the message again in
 * place, and the process exits after repeated failures so that it is restarted.
 */
export class InfrastructureError extends AppError {
  constructor(message: string, options: Omit<AppErrorOptions, 'retryable'> = {}) {
    super('internal', message, { ...options, retryable: true });
  }
}

/** A request that can never succeed as sent: bad JSON, schema, tax id, plate... Never retried. */
export class InvalidRequestError extends AppError {
  constructor(message: string, options: Omit<AppErrorOptions, 'retryable'> = {}) {
    super('invalid_request', message, { ...options, retryable: false });
  }
}

/**
 * A failure the person running a command can fix (a setting, a flag, an unknown topic...):
 * the command ends with one line naming it and an exit code of its own, never a stack trace.
 * Not an AppError: these never become dead letters.
 */
export abstract class CommandError extends Error {
  abstract readonly exitCode: number;

  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
  }

  /** The one line the command prints. */
  describe(): string {
    return this.message;
  }
}

/** A bad setting: start-up stops with a message naming it (exit code 78, EX_CONFIG). */
export class ConfigError extends CommandError {
  readonly exitCode = 78;

  constructor(
    readonly setting: string,
    message: string,
  ) {
    super(`${setting}: ${message}`);
  }

  override describe(): string {
    return `configuration error: ${this.message}`;
  }
}

/** Turns anything thrown into an AppError, keeping the original as `cause`. */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new AppError('internal', message, { cause: error, retryable: false });
}
