import { Agent } from 'undici';
import type { ParamsInputOf } from '../contract/params.js';
import { classifyDocument } from './operations/classify-document.js';
import { companyPartners } from './operations/company-partners.js';
import { esocialEligibility } from './operations/esocial-eligibility.js';
import { faceDocumentLookup } from './operations/face-document-lookup.js';
import { lawsuitByNumber } from './operations/lawsuit-by-number.js';
import { lawsuitsByParty } from './operations/lawsuits-by-party.js';
import { lawsuitsSummary } from './operations/lawsuits-summary.js';
import { stateRegistration } from './operations/state-registration.js';
import {
  createVehicleSearch,
  getVehicleSearch,
  type CreateVehicleSearchOptions,
} from './operations/vehicle-async.js';
import { vehicle } from './operations/vehicle.js';
import { resolveVendorOptions, type VendorClientOptions } from './options.js';
import type { ClassifyResponse } from './schemas/classify.js';
import type { FaceResponse } from './schemas/face.js';
import type {
  LawsuitByNumberResponse,
  LawsuitsResponse,
  LawsuitsSummaryResponse,
} from './schemas/lawsuits.js';
import type {
  CompanyPartnersResponse,
  EsocialResponse,
  StateRegistrationResponse,
} from './schemas/registry.js';
import type { VehicleResponse, VehicleSearchCreated, VehicleSearchResponse } from './schemas/vehicle.js';
import { createTransport } from './transport.js';
import { createSelfieDownloader } from './selfie-download.js';
import type { CallOptions, VendorContext, VendorResult } from './types.js';

/**
 * One method per vendor call. Each validates its params (src/contract/params.ts) before any
 * request, so a request that can never succeed costs nothing, and throws InvalidRequestError
 * with the schema's message. Vendor failures throw VendorError.
 */
export interface VendorClient {
  classifyDocument(
    params: ParamsInputOf<'classify-document'>,
    options?: CallOptions,
  ): Promise<VendorResult<ClassifyResponse>>;
  faceDocumentLookup(
    params: ParamsInputOf<'face-document-lookup'>,
    options?: CallOptions,
  ): Promise<VendorResult<FaceResponse>>;
  lawsuitsByParty(
    params: ParamsInputOf<'lawsuits-by-party'>,
    options?: CallOptions,
  ): Promise<VendorResult<LawsuitsResponse>>;
  lawsuitsSummary(
    params: ParamsInputOf<'lawsuits-summary'>,
    options?: CallOptions,
  ): Promise<VendorResult<LawsuitsSummaryResponse>>;
  lawsuitByNumber(
    params: ParamsInputOf<'lawsuit-by-number'>,
    options?: CallOptions,
  ): Promise<VendorResult<LawsuitByNumberResponse>>;
  vehicle(params: ParamsInputOf<'vehicle'>, options?: CallOptions): Promise<VendorResult<VehicleResponse>>;
  createVehicleSearch(
    params: ParamsInputOf<'vehicle-async'>,
    options?: CreateVehicleSearchOptions,
  ): Promise<VendorResult<VehicleSearchCreated>>;
  getVehicleSearch(requestId: string, options?: CallOptions): Promise<VendorResult<VehicleSearchResponse>>;
  stateRegistration(
    params: ParamsInputOf<'state-registration'>,
    options?: CallOptions,
  ): Promise<VendorResult<StateRegistrationResponse>>;
  companyPartners(
    params: ParamsInputOf<'company-partners'>,
    options?: CallOptions,
  ): Promise<VendorResult<CompanyPartnersResponse>>;
  esocialEligibility(
    params: ParamsInputOf<'esocial-eligibility'>,
    options?: CallOptions,
  ): Promise<VendorResult<EsocialResponse>>;
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
    classifyDocument: (params, call) => classifyDocument(context, params, call),
    faceDocumentLookup: (params, call) => faceDocumentLookup(context, params, call),
    lawsuitsByParty: (params, call) => lawsuitsByParty(context, params, call),
    lawsuitsSummary: (params, call) => lawsuitsSummary(context, params, call),
    lawsuitByNumber: (params, call) => lawsuitByNumber(context, params, call),
    vehicle: (params, call) => vehicle(context, params, call),
    createVehicleSearch: (params, call) => createVehicleSearch(context, params, call),
    getVehicleSearch: (requestId, call) => getVehicleSearch(context, requestId, call),
    stateRegistration: (params, call) => stateRegistration(context, params, call),
    companyPartners: (params, call) => companyPartners(context, params, call),
    esocialEligibility: (params, call) => esocialEligibility(context, params, call),
    // Idempotent: undici throws when an agent is closed twice.
    downloadSelfie: (url, call) => selfies.download(url, call?.signal),
    close: () => (closing ??= Promise.all([agent.close(), selfies.close()]).then(() => undefined)),
  };
}
