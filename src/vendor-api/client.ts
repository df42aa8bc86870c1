import { Agent } from 'undici';
import type { Operation } from '../contract/operations.js';
import type { ParamsOf } from '../contract/params.js';
import { classifyDocument } from './operations/classify-document.js';
import { faceDocumentLookup } from './operations/face-document-lookup.js';
import {
  companyPartners,
  esocialEligibility,
  lawsuitByNumber,
  lawsuitsByParty,
  lawsuitsSummary,
  stateRegistration,
  vehicle,
} from './operations/lookups.js';
import { createVehicleSearch, getVehicleSearch } from './operations/vehicle-async.js';
import { resolveVendorOptions, type VendorClientOptions } from './options.js';
import type { VehicleSearchResponse } from './schemas/vehicle.js';
import { createSelfieDownloader } from './selfie-download.js';
import { createTransport } from './transport.js';
import type { CallOptions, VendorContext, VendorResult } from './types.js';

/**
 * The vendor call of each operation of the contract: the one table the client and the
 * handlers follow. Every call takes params already parsed by the operation's schema
 * (contract/params.ts parseParams, once, where the request is read).
 */
const OPERATIONS_TABLE = {
  'classify-document': classifyDocument,
  'face-document-lookup': faceDocumentLookup,
  'lawsuits-by-party': lawsuitsByParty,
  'lawsuits-summary': lawsuitsSummary,
  'lawsuit-by-number': lawsuitByNumber,
  vehicle,
  'vehicle-async': createVehicleSearch,
  'state-registration': stateRegistration,
  'company-partners': companyPartners,
  'esocial-eligibility': esocialEligibility,
} satisfies Record<Operation, unknown>;

type Table = typeof OPERATIONS_TABLE;

// Resolved per operation here, so that code generic in the operation can index them.
type ResponseMap = {
  [O in Operation]: Awaited<ReturnType<Table[O]>> extends VendorResult<infer T> ? T : never;
};
type OptionsMap = { [O in Operation]: NonNullable<Parameters<Table[O]>[2]> };

/** The body of a successful answer to an operation's call. */
export type ResponseOf<O extends Operation> = ResponseMap[O];
/** The per-call options of an operation (a signal; vehicle-async also takes the webhook). */
export type OptionsOf<O extends Operation> = OptionsMap[O];

type VendorOperation<O extends Operation> = (
  context: VendorContext,
  params: ParamsOf<O>,
  options?: OptionsOf<O>,
) => Promise<VendorResult<ResponseOf<O>>>;

const VENDOR_OPERATIONS: { readonly [O in Operation]: VendorOperation<O> } = OPERATIONS_TABLE;

/**
 * The vendor API: one call per operation of the contract (the table above), plus the
 * status of an asynchronous vehicle search. Params come parsed by the operation's schema
 * (contract/params.ts), so a request that can never succeed never reaches here. Vendor
 * failures throw VendorError.
 */
export interface VendorClient {
  call<O extends Operation>(
    operation: O,
    params: ParamsOf<O>,
    options?: OptionsOf<O>,
  ): Promise<VendorResult<ResponseOf<O>>>;
  getVehicleSearch(requestId: string, options?: CallOptions): Promise<VendorResult<VehicleSearchResponse>>;
  /**
   * Fetches a selfie given by URL (face lookup), outside any vendor limit: the runtime does it
   * before the vendor call. Every refusal or failure is one `invalid_request` VendorError.
   */
  downloadSelfie(url: string, options?: CallOptions): Promise<Uint8Array>;
  /** Waits for calls in flight, then closes every socket; later calls fail with VENDOR_CLIENT_CLOSED. */
  close(): Promise<void>;
}

/**
 * Builds the client around ONE undici Agent shared by every call (keep-alive sockets, a
 * bound on connections, connect/headers/body time limits), so the vendor sees a steady pool
 * rather than a socket per request. Options are checked here, once; a bad one throws
 * ConfigError naming it.
 */
export function createVendorClient(options: VendorClientOptions): VendorClient {
  const resolved = resolveVendorOptions(options);
  const agent = new Agent({
    connections: resolved.connections,
    keepAliveTimeout: resolved.keepAliveTimeoutMs,
    headersTimeout: resolved.headersTimeoutMs,
    bodyTimeout: resolved.bodyTimeoutMs,
    maxResponseSize: resolved.maxResponseBytes,
    connect: { timeout: resolved.connectTimeoutMs },
  });
  const selfies = createSelfieDownloader(resolved.selfieDownload);
  const context: VendorContext = {
    send: createTransport(agent, resolved),
    agent,
    selfies,
    options: resolved,
  };
  let closing: Promise<void> | undefined;
  return {
    call: (operation, params, options) => VENDOR_OPERATIONS[operation](context, params, options),
    getVehicleSearch: (requestId, options) => getVehicleSearch(context, requestId, options),
    // Idempotent: undici throws when an agent is closed twice.
    downloadSelfie: (url, call) => selfies.download(url, call?.signal),
    close: () => (closing ??= Promise.all([agent.close(), selfies.close()]).then(() => undefined)),
  };
}
