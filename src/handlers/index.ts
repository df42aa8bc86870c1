import type { Correlation, Origin } from '../contract/envelopes.js';
import { OPERATIONS, type Operation } from '../contract/operations.js';
import { AppError, InfrastructureError } from '../errors.js';
import type { VendorClient } from '../vendor-api/client.js';
import type { VehicleSearchWebhook } from '../vendor-api/operations/vehicle-async.js';
import type { VendorResult } from '../vendor-api/types.js';
import type { Handler, HandlerOutcome, Handlers } from './types.js';

/** What `createHandlers` depends on. */
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

/**
 * One handler per operation: params → vendor call → outcome. Nine of them are the same
 * pass-through over the vendor client's table (vendor-api/client.ts); vehicle-async adds
 * the webhook and the record of the pending search.
 */
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
  const unrecorded = new UnrecordedSearches();
  return async (params, { requestId, signal, beforeSend, metadata, correlation, origin }) => {
    const key = unrecordedKey(requestId, origin);
    // This very message created (and paid for) a search whose record failed: the runtime tried
    // the message again in place, and only the record is tried again (issue 39, N2).
    const earlier = unrecorded.get(key);
    if (earlier) {
      await record(deps, earlier.search, signal);
      unrecorded.delete(key);
      return earlier.outcome;
    }
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
    const outcome: HandlerOutcome = { ...toOutcome(result), status: 'accepted', searchId };
    const search: CreatedSearch = { requestId, searchId, metadata, correlation, origin };
    try {
      await record(deps, search, signal);
    } catch (error) {
      // Kept for the next try of this message, which records this search instead of paying
      // for another one.
      unrecorded.set(key, { search, outcome });
      throw error;
    }
    return outcome;
  };
}

/**
 * Records the pending search. A failure is thrown as an InfrastructureError: the runtime tries
 * the message again in place (while Redis is down that try's claim fails before anything else),
 * since an `accepted` result without a pending entry would never complete.
 */
async function record(deps: VehicleAsyncDeps, search: CreatedSearch, signal: AbortSignal): Promise<void> {
  if (!deps.onSearchCreated) return;
  try {
    await deps.onSearchCreated(search, signal);
  } catch (error) {
    throw new InfrastructureError('could not record the pending vehicle search', {
      cause: error,
      code: 'PENDING_STORE_FAILED',
    });
  }
}

/** The message (requestId and offset) a search was created for: only that message reuses it. */
function unrecordedKey(requestId: string, origin: Origin | undefined): string {
  return origin === undefined
    ? requestId
    : `${requestId}\u0000${origin.topic}\u0000${origin.partition}\u0000${origin.offset}`;
}

/**
 * Searches paid for whose pending entry is not written yet, by message. Bounded: past the
 * limit the oldest is forgotten (its message, if tried again, would pay for a second search,
 * as it did before this list existed); an entry leaves once recorded.
 */
class UnrecordedSearches {
  static readonly MAX = 10_000;
  private readonly entries = new Map<string, { search: CreatedSearch; outcome: HandlerOutcome }>();

  get(key: string): { search: CreatedSearch; outcome: HandlerOutcome } | undefined {
    return this.entries.get(key);
  }

  set(key: string, entry: { search: CreatedSearch; outcome: HandlerOutcome }): void {
    this.entries.delete(key);
    this.entries.set(key, entry);
    if (this.entries.size > UnrecordedSearches.MAX) {
      const oldest = this.entries.keys().next();
      if (oldest.done !== true) this.entries.delete(oldest.value);
    }
  }

  delete(key: string): void {
    this.entries.delete(key);
  }
}
