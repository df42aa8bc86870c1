import { AppError, type AppErrorOptions, type ErrorCode, type ErrorKind } from '../errors.js';

/**
 * Failures of a vendor call, one stable code each (the undici pattern: one code per failure,
 * flags for the runtime; the list is ERROR_CODES in src/errors.ts). `kind` is the contract's
 * dead-letter kind (shared/contract.md, "Messages"); `retryable` says whether the same call may
 * succeed later.
 */
export type VendorErrorCode = Extract<ErrorCode, `VENDOR_${string}` | `SELFIE_${string}`>;

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
