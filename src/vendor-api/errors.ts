import { AppError, type AppErrorOptions, type ErrorKind } from '../errors.js';

/**
 * Failures of a vendor call, one stable code each (the undici pattern: one code per failure,
 * flags for the runtime). `kind` is the contract's dead-letter kind (shared/contract.md,
 * "Messages"); `retryable` says whether the same call may succeed later.
 */
export const VENDOR_ERROR_CODES = [
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
  'SELFIE_UNUSABLE', // the selfie URL was refused, or did not give a JPEG within the limits
] as const;
export type VendorErrorCode = (typeof VENDOR_ERROR_CODES)[number];

/** Which vendor call failed: the operation and its route template (never the real path). */
export interface VendorCall {
  operation: string;
  route: string;
}

export interface VendorErrorOptions extends Omit<AppErrorOptions, 'details'> {
  code: VendorErrorCode;
  call: VendorCall;
  vendorId?: string | undefined;
  /** `error.message` of the vendor's error envelope: free text that may echo personal data. */
  vendorMessage?: string | undefined;
  details?: Record<string, unknown>;
}

export class VendorError extends AppError {
  override readonly code: VendorErrorCode;
  readonly operation: string;
  readonly vendorId: string | undefined;
  /**
   * The vendor's own message. Not enumerable, so pino's error serializer and JSON.stringify
   * leave it out: it may echo a tax id or a name, and logs must not carry personal data
   * (shared/contract.md, "Guarantees"). Read it explicitly where a person needs it.
   */
  declare readonly vendorMessage: string | undefined;

  constructor(kind: ErrorKind, message: string, options: VendorErrorOptions) {
    const { code, call, vendorId, vendorMessage, details, ...rest } = options;
    super(kind, message, {
      ...rest,
      details: { code, operation: call.operation, route: call.route, vendorId, ...details },
    });
    this.code = code;
    this.operation = call.operation;
    this.vendorId = vendorId;
    Object.defineProperty(this, 'vendorMessage', { value: vendorMessage, enumerable: false });
  }
}

export function isVendorError(error: unknown): error is VendorError {
  return error instanceof VendorError;
}
