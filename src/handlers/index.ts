import type { Correlation, Origin } from '../contract/envelopes.js';
import { OPERATIONS, type Operation } from '../contract/operations.js';
import { AppError, InfrastructureError } from '../errors.js';
import type { VendorClient } from '../vendor-api/client.js';
import type { VehicleSearchWebhook } from '../vendor-api/operations/vehicle-async.js';
import type { VendorResult } from '../vendor-api/types.js';
import type { Handler, HandlerOutcome, Handlers } from './types.js';

/**
 * One handler per operation: params → vendor call → outcome. Nine of them are the same
 * pass-through over the vendor client's table (vendor-api/client.ts); vehicle-async adds
 * the webhook and the record of the pending search.
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
  return async (params, { signal, beforeSend }) =>
    toOutcome(await vendor.call(operation, params, { signal, beforeSend }));
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

/** The contract's view of a vendor answer: its status, its body as received, its call data. */
export function toOutcome(result: VendorResult<unknown>): HandlerOutcome {
  return {
    status: result.outcome,
    response: result.raw,
    vendor: {
      httpStatus: result.httpStatus,
      ...(result.vendorId === undefined ? {} : { id: result.vendorId }),
      ...(result.version === undefined ? {} : { version: result.version }),
      ...(result.timeSpent === undefined ? {} : { timeSpent: result.timeSpent }),
    },
  };
}

/** A search the vendor accepted, as the completion tracker (src/webhooks/) records it. */
export interface CreatedSearch {
  requestId: string;
  searchId: string;
  metadata?: Readonly<Record<string, string>> | undefined;
  correlation?: Correlation | undefined;
  /** The request message: its final event waits until this offset is committed. */
  origin?: Origin | undefined;
}

export interface VehicleAsyncDeps {
  /** The webhook the vendor calls when the search ends; absent: the search is only polled. */
  webhookFor?: ((requestId: string) => VehicleSearchWebhook) | undefined;
  /**
   * Records the pending search. Awaited before the outcome is returned, so the entry exists
   * before the `accepted` result is committed: a completion can never miss its search.
   */
  onSearchCreated?: ((search: CreatedSearch, signal: AbortSignal) => Promise<void>) | undefined;
}

/**
 * vehicle-async: creates the search, with a webhook pointing at our sink when one is
 * configured, and answers `accepted` with the vendor's id of the search. Completion arrives
 * later through the webhook or the poller (src/webhooks/).
 */
export function vehicleAsyncHandler(
  vendor: Pick<VendorClient, 'call'>,
  deps: VehicleAsyncDeps = {},
): Handler<'vehicle-async'> {
  return async (params, { requestId, signal, beforeSend, metadata, correlation, origin }) => {
    const webhook = deps.webhookFor?.(requestId);
    const result = await vendor.call('vehicle-async', params, {
      signal,
      beforeSend,
      ...(webhook ? { webhook } : {}),
    });
    const searchId = result.outcome === 'ok' ? result.body.id : undefined;
    if (searchId === undefined) {
      throw new AppError('internal', 'the vendor accepted the search without returning its id', {
        code: 'VENDOR_BAD_RESPONSE',
        httpStatus: result.httpStatus,
      });
    }
    if (deps.onSearchCreated) {
      try {
        await deps.onSearchCreated({ requestId, searchId, metadata, correlation, origin }, signal);
      } catch (error) {
        // Tried again although the search is paid for: an `accepted` result without a pending
        // entry would never complete, which is worse than a second search. In place, by the
        // runtime: while Redis is down the next attempt's claim fails before any call.
        throw new InfrastructureError('could not record the pending vehicle search', {
          cause: error,
          code: 'PENDING_STORE_FAILED',
        });
      }
    }
    return { ...toOutcome(result), status: 'accepted', searchId };
  };
}
