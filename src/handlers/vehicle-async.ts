import type { Correlation, Origin } from '../contract/envelopes.js';
import { AppError } from '../errors.js';
import type { VendorClient } from '../vendor-api/client.js';
import type { VehicleSearchWebhook } from '../vendor-api/operations/vehicle-async.js';
import { toOutcome } from './outcome.js';
import type { Handler } from './types.js';

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
  return async (params, { requestId, signal, metadata, correlation, origin }) => {
    const webhook = deps.webhookFor?.(requestId);
    const result = await vendor.call('vehicle-async', params, {
      signal,
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
        // Retryable although the search is paid for: an `accepted` result without a pending
        // entry would never complete, which is worse than a second search.
        throw new AppError('internal', 'could not record the pending vehicle search', {
          cause: error,
          retryable: true,
          code: 'PENDING_STORE_FAILED',
        });
      }
    }
    return { ...toOutcome(result), status: 'accepted', searchId };
  };
}
