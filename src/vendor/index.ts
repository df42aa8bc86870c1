/** The vendor API client (vendor-api.md) and the document checks it relies on. */
export { createVendorClient, type VendorClient } from './client.js';
export type { VendorClientOptions } from './options.js';
export type { CallOptions, VendorResult } from './types.js';
export type { CreateVehicleSearchOptions, VehicleSearchWebhook } from './operations/vehicle-async.js';
export {
  VendorError,
  isVendorError,
  VENDOR_ERROR_CODES,
  type VendorErrorCode,
  type VendorCall,
} from './errors.js';
export { parseRetryAfter } from './retry-after.js';
export {
  COURTS,
  LAWSUIT_STATUSES,
  LAWSUIT_FIELDS,
  SEGMENTS,
  PART_POLES,
  FACE_DOCUMENT_TYPES,
  WEBHOOK_METHODS,
} from './vocabulary.js';
export type { ClassifyResponse, Classification } from './schemas/classify.js';
export type { FaceResponse, FaceRecord } from './schemas/face.js';
export type {
  Lawsuit,
  LawsuitsResponse,
  LawsuitByNumberResponse,
  LawsuitSummary,
  LawsuitsSummaryResponse,
} from './schemas/lawsuits.js';
export type {
  VehicleRecord,
  VehicleResponse,
  VehicleSearch,
  VehicleSearchCreated,
  VehicleSearchResponse,
} from './schemas/vehicle.js';
export type {
  CompanyPartnersResponse,
  EsocialRecord,
  EsocialResponse,
  StateRegistrationResponse,
} from './schemas/registry.js';
export * from './documents/index.js';
