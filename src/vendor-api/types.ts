import type { IncomingHttpHeaders } from 'node:http';
import type { Dispatcher, FormData } from 'undici';
import type { VendorCall } from './errors.js';
import type { ResolvedVendorOptions } from './options.js';
import type { SelfieDownloader } from './selfie-download.js';

/** Per-call options of every client method. */
export interface CallOptions {
  /** Cancels the call (the runtime's shutdown or deadline); the error is VENDOR_ABORTED. */
  signal?: AbortSignal;
  /**
   * Called synchronously just before the request is written to the socket. When it throws,
   * nothing is sent and the call rejects with that error, as thrown.
   */
  beforeSend?: (() => void) | undefined;
}

interface VendorResultMeta {
  httpStatus: number;
  /** The vendor's JSON body exactly as received (auditors need unknown fields too). */
  raw: unknown;
  /** Root `id` of the vendor's answer: the id of this request at the vendor. */
  vendorId?: string;
  /** `version` as answered, which may differ from the path segment (vendor-api.md, "Versioning"). */
  version?: string;
  /** `metadata.timeSpent` as answered. */
  timeSpent?: number;
}

/**
 * The outcome of a vendor call. `not_found` is the vendor's documented "nothing found" 404
 * (vehicle sync lookup, face lookup without a document): an answer, not an error.
 */
export type VendorResult<T> =
  | (VendorResultMeta & { outcome: 'ok'; body: T })
  | (VendorResultMeta & { outcome: 'not_found'; body: undefined });

export interface VendorRequest {
  call: VendorCall;
  method: 'GET' | 'POST';
  /** Path below the base URL, already percent-encoded. */
  path: string;
  query?: readonly (readonly [string, string])[];
  json?: unknown;
  form?: FormData;
  signal?: AbortSignal | undefined;
  /** CallOptions.beforeSend. */
  beforeSend?: (() => void) | undefined;
}

export interface VendorResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/** What every operation file receives: one transport, the shared agent, the options. */
export interface VendorContext {
  send(request: VendorRequest): Promise<VendorResponse>;
  agent: Dispatcher;
  /** Selfies given by URL, on their own guarded agent (selfie-download.ts). */
  selfies: SelfieDownloader;
  options: ResolvedVendorOptions;
}
