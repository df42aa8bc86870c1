import type { Operation } from '../../contract/operations.js';
import type { ParamsOf } from '../../contract/params.js';
import type { VendorContext, VendorResult } from '../types.js';
import { classifyDocument } from './classify-document.js';
import { companyPartners } from './company-partners.js';
import { esocialEligibility } from './esocial-eligibility.js';
import { faceDocumentLookup } from './face-document-lookup.js';
import { lawsuitByNumber } from './lawsuit-by-number.js';
import { lawsuitsByParty } from './lawsuits-by-party.js';
import { lawsuitsSummary } from './lawsuits-summary.js';
import { stateRegistration } from './state-registration.js';
import { createVehicleSearch } from './vehicle-async.js';
import { vehicle } from './vehicle.js';

/**
 * The vendor call of each operation of the contract: the one table the client and the
 * handlers follow. Every call takes params already parsed by the operation's schema
 * (contract/params.ts parseParams, once, where the request is read).
 */
const TABLE = {
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

type Table = typeof TABLE;

// Resolved per operation here, so that code generic in the operation can index them.
type ResponseMap = {
  [O in Operation]: Awaited<ReturnType<Table[O]>> extends VendorResult<infer T> ? T : never;
};
type OptionsMap = { [O in Operation]: NonNullable<Parameters<Table[O]>[2]> };

/** The body of a successful answer to an operation's call. */
export type ResponseOf<O extends Operation> = ResponseMap[O];
/** The per-call options of an operation (a signal; vehicle-async also takes the webhook). */
export type OptionsOf<O extends Operation> = OptionsMap[O];

export type VendorOperation<O extends Operation> = (
  context: VendorContext,
  params: ParamsOf<O>,
  options?: OptionsOf<O>,
) => Promise<VendorResult<ResponseOf<O>>>;

export const VENDOR_OPERATIONS: { readonly [O in Operation]: VendorOperation<O> } = TABLE;
