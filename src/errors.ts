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

export interface AppErrorOptions {
  cause?: unknown;
  retryable?: boolean;
  httpStatus?: number;
  /** Milliseconds the vendor asked us to wait (Retry-After), when it said. */
  retryAfterMs?: number;
  /** Machine-readable detail that is safe to log (never personal data). */
  details?: Record<string, unknown>;
  /** A stable code naming the failure more precisely than the kind (VENDOR_TIMEOUT...). */
  code?: string;
}

/** Base class of every error the service raises on purpose. */
export class AppError extends Error {
  readonly kind: ErrorKind;
  readonly retryable: boolean;
  readonly httpStatus: number | undefined;
  readonly retryAfterMs: number | undefined;
  readonly details: Record<string, unknown> | undefined;
  readonly code: string | undefined;

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

/** A request that can never succeed as sent: bad JSON, schema, tax id, plate... Never retried. */
export class InvalidRequestError extends AppError {
  constructor(message: string, options: Omit<AppErrorOptions, 'retryable'> = {}) {
    super('invalid_request', message, { ...options, retryable: false });
  }
}

/** A bad setting: start-up stops with a message naming it. */
export class ConfigError extends Error {
  constructor(
    readonly setting: string,
    message: string,
  ) {
    super(`${setting}: ${message}`);
    this.name = 'ConfigError';
  }
}

/** Turns anything thrown into an AppError, keeping the original as `cause`. */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new AppError('internal', message, { cause: error, retryable: false });
}
