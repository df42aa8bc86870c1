import type { ParamsInputOf } from '../contract/params.js';
import { AppError } from '../errors.js';
import type { VendorClient } from '../vendor/client.js';
import type { VehicleSearchWebhook } from '../vendor/operations/vehicle-async.js';
import { toOutcome } from './outcome.js';
import type { Handler } from './types.js';

/**
 * vehicle-async: creates the search, with a webhook pointing at our sink when one is
 * configured, and answers `accepted` with the vendor's id of the search. Completion arrives
 * later through the webhook or the poller (src/webhooks/).
 */
export function vehicleAsyncHandler(
  vendor: VendorClient,
  webhookFor: ((requestId: string) => VehicleSearchWebhook) | undefined,
): Handler {
  return async (params, { requestId, signal }) => {
    const webhook = webhookFor?.(requestId);
    const result = await vendor.createVehicleSearch(params as ParamsInputOf<'vehicle-async'>, {
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
    return { ...toOutcome(result), status: 'accepted', searchId };
  };
}
