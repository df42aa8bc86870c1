import { OPERATIONS, type Operation } from '../contract/operations.js';
import type { VendorClient } from '../vendor-api/client.js';
import type { VehicleSearchWebhook } from '../vendor-api/operations/vehicle-async.js';
import { toOutcome } from './outcome.js';
import type { Handler, Handlers } from './types.js';
import { vehicleAsyncHandler, type VehicleAsyncDeps } from './vehicle-async.js';

/**
 * One handler per operation: params → vendor call → outcome. Nine of them are the same
 * pass-through over the vendor client's table (vendor-api/operations/index.ts); the operation
 * with its own logic (vehicle-async) has its own file.
 */
export interface HandlerDeps {
  vendor: VendorClient;
  /** The webhook the vendor calls when an asynchronous vehicle search ends. */
  vehicleSearchWebhook?: ((requestId: string) => VehicleSearchWebhook) | undefined;
  /** Records a created search for its completion (src/webhooks/), before its result is committed. */
  onVehicleSearchCreated?: VehicleAsyncDeps['onSearchCreated'];
}

/** Nine operations are the vendor call alone: the params go as parsed, the answer comes back as is. */
function passThrough<O extends Operation>(vendor: VendorClient, operation: O): Handler<O> {
  return async (params, { signal }) => toOutcome(await vendor.call(operation, params, { signal }));
}

/** A selfie given by URL is downloaded before the vendor call and handed on as base64. */
function withSelfieDownload(
  vendor: VendorClient,
  handler: Handler<'face-document-lookup'>,
): Handler<'face-document-lookup'> {
  const prepare: Handler<'face-document-lookup'>['prepare'] = async (params, signal) => {
    const { selfie } = params;
    if (!('url' in selfie)) return params;
    const bytes = await vendor.downloadSelfie(selfie.url, { signal });
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
    ...byOperation((operation) => passThrough(vendor, operation)),
    'face-document-lookup': withSelfieDownload(vendor, passThrough(vendor, 'face-document-lookup')),
    'vehicle-async': vehicleAsyncHandler(vendor, {
      webhookFor: vehicleSearchWebhook,
      onSearchCreated: onVehicleSearchCreated,
    }),
  };
}

/** One handler per operation, each typed for its own params. */
function byOperation(make: <O extends Operation>(operation: O) => Handler<O>): Handlers {
  // Object.fromEntries loses the link between each key and its handler's params; `make` keeps it.
  return Object.fromEntries(
    OPERATIONS.map((operation) => [operation, make(operation)]),
  ) as unknown as Handlers;
}
