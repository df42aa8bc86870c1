import { z } from 'zod';
import type { ParamsOf } from '../../contract/params.js';
import { InvalidRequestError } from '../../errors.js';
import type { VendorCall } from '../errors.js';
import { httpUrl } from '../../contract/param-rules/fields.js';
import { formatIssues, toParamsIssues } from '../../contract/param-rules/issues.js';
import { interpret } from '../respond.js';
import {
  vehicleSearchCreatedSchema,
  vehicleSearchResponseSchema,
  type VehicleSearchCreated,
  type VehicleSearchResponse,
} from '../schemas/vehicle.js';
import type { CallOptions, VendorContext, VendorResult } from '../types.js';
import { WEBHOOK_METHODS } from '../../contract/vocabulary.js';

const CREATE: VendorCall = { operation: 'vehicle-async', route: 'POST /vehicles-async/v3' };
const GET: VendorCall = { operation: 'vehicle-async', route: 'GET /vehicles-async/v3/:requestId' };

/** vendor-api.md "POST /vehicles-async/v3": the vendor calls it back as given, unchanged. */
const webhookSchema = z.strictObject({
  url: httpUrl(),
  method: z.enum(WEBHOOK_METHODS, { error: `must be one of ${WEBHOOK_METHODS.join(', ')}` }).optional(),
  headers: z.record(z.string(), z.string(), { error: 'must be an object of string values' }).optional(),
  body: z.record(z.string(), z.unknown(), { error: 'must be an object' }).optional(),
});
export type VehicleSearchWebhook = z.output<typeof webhookSchema>;

export interface CreateVehicleSearchOptions extends CallOptions {
  /** Where the vendor announces completion; set by the service (its webhook sink), not by requesters. */
  webhook?: VehicleSearchWebhook;
}

/** POST /vehicles-async/v3: all parameters in the JSON body, unlike the synchronous lookup. */
export async function createVehicleSearch(
  context: VendorContext,
  params: ParamsOf<'vehicle-async'>,
  options: CreateVehicleSearchOptions = {},
): Promise<VendorResult<VehicleSearchCreated>> {
  const { licensePlate } = params;
  const webhook = options.webhook === undefined ? undefined : parseWebhook(options.webhook);
  const response = await context.send({
    call: CREATE,
    method: 'POST',
    path: '/vehicles-async/v3',
    json: webhook === undefined ? { licensePlate } : { licensePlate, webhook },
    signal: options.signal,
    beforeSend: options.beforeSend,
  });
  return interpret(CREATE, response, vehicleSearchCreatedSchema);
}

/**
 * GET /vehicles-async/v3/:requestId. The root `id` of the answer (vendorId) is this query's
 * id; the search's own id is `data.requestId` (vendor-api.md).
 */
export async function getVehicleSearch(
  context: VendorContext,
  requestId: string,
  options: CallOptions = {},
): Promise<VendorResult<VehicleSearchResponse>> {
  if (typeof requestId !== 'string' || !/^[\x21-\x7e]{1,200}$/.test(requestId)) {
    throw new InvalidRequestError(
      'vehicle-async requestId: must be 1 to 200 visible ASCII characters (the id the creating call returned)',
    );
  }
  const response = await context.send({
    call: GET,
    method: 'GET',
    path: `/vehicles-async/v3/${encodeURIComponent(requestId)}`,
    signal: options.signal,
    beforeSend: options.beforeSend,
  });
  return interpret(GET, response, vehicleSearchResponseSchema);
}

function parseWebhook(webhook: unknown): VehicleSearchWebhook {
  const result = webhookSchema.safeParse(webhook);
  if (result.success) return result.data;
  const message = formatIssues(toParamsIssues(result.error.issues, ['webhook']));
  throw new InvalidRequestError(`vehicle-async ${message}`);
}
