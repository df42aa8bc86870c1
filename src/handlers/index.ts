import type { Operation } from '../contract/operations.js';
import type { ParamsInputOf } from '../contract/params.js';
import type { VendorClient } from '../vendor-api/client.js';
import type { VehicleSearchWebhook } from '../vendor-api/operations/vehicle-async.js';
import type { CallOptions, VendorResult } from '../vendor-api/types.js';
import { toOutcome } from './outcome.js';
import type { Handler, Handlers } from './types.js';
import { vehicleAsyncHandler, type VehicleAsyncDeps } from './vehicle-async.js';

/**
 * One handler per operation: params → vendor call → outcome. Nine of them are the same
 * pass-through, so they are one table here rather than nine copies of one file; the
 * operation with its own logic (vehicle-async) has its own file.
 */
export interface HandlerDeps {
  vendor: VendorClient;
  /** The webhook the vendor calls when an asynchronous vehicle search ends. */
  vehicleSearchWebhook?: ((requestId: string) => VehicleSearchWebhook) | undefined;
  /** Records a created search for its completion (src/webhooks/), before its result is committed. */
  onVehicleSearchCreated?: VehicleAsyncDeps['onSearchCreated'];
}

type VendorCall<O extends Operation> = (
  params: ParamsInputOf<O>,
  options: CallOptions,
) => Promise<VendorResult<unknown>>;

/** Params reach handlers already checked against the operation's schema (contract/params.ts). */
function passThrough<O extends Operation>(call: VendorCall<O>): Handler {
  return async (params, { signal }) => toOutcome(await call(params as ParamsInputOf<O>, { signal }));
}

/** A selfie given by URL is downloaded before the vendor call and handed on as base64. */
function withSelfieDownload(vendor: VendorClient, handler: Handler): Handler {
  const prepare: Handler['prepare'] = async (params, signal) => {
    const selfie = params.selfie;
    if (typeof selfie !== 'object' || selfie === null || !('url' in selfie)) return params;
    const bytes = await vendor.downloadSelfie(String(selfie.url), { signal });
    return { ...params, selfie: { base64: Buffer.from(bytes).toString('base64') } };
  };
  return Object.assign(handler, { prepare });
}

export function createHandlers({
  vendor,
  vehicleSearchWebhook,
  onVehicleSearchCreated,
}: HandlerDeps): Handlers {
  return {
    'classify-document': passThrough<'classify-document'>((p, o) => vendor.classifyDocument(p, o)),
    'face-document-lookup': withSelfieDownload(
      vendor,
      passThrough<'face-document-lookup'>((p, o) => vendor.faceDocumentLookup(p, o)),
    ),
    'lawsuits-by-party': passThrough<'lawsuits-by-party'>((p, o) => vendor.lawsuitsByParty(p, o)),
    'lawsuits-summary': passThrough<'lawsuits-summary'>((p, o) => vendor.lawsuitsSummary(p, o)),
    'lawsuit-by-number': passThrough<'lawsuit-by-number'>((p, o) => vendor.lawsuitByNumber(p, o)),
    vehicle: passThrough<'vehicle'>((p, o) => vendor.vehicle(p, o)),
    'vehicle-async': vehicleAsyncHandler(vendor, {
      webhookFor: vehicleSearchWebhook,
      onSearchCreated: onVehicleSearchCreated,
    }),
    'state-registration': passThrough<'state-registration'>((p, o) => vendor.stateRegistration(p, o)),
    'company-partners': passThrough<'company-partners'>((p, o) => vendor.companyPartners(p, o)),
    'esocial-eligibility': passThrough<'esocial-eligibility'>((p, o) => vendor.esocialEligibility(p, o)),
  };
}
