import type { ParamsOf } from '../../contract/params.js';
import type { VendorCall } from '../errors.js';
import { presentQuery } from '../query.js';
import { interpret } from '../respond.js';
import { vehicleResponseSchema, type VehicleResponse } from '../schemas/vehicle.js';
import type { CallOptions, VendorContext, VendorResult } from '../types.js';

const CALL: VendorCall = { operation: 'vehicle', route: 'GET /vehicles/v3' };
const KEYS = ['licensePlate', 'registryId', 'chassis'] as const;

/**
 * GET /vehicles/v3 by exactly one of plate, registry id (RENAVAM) or chassis, letters and
 * digits only (params.ts drops the plate hyphen). A 404 means nothing found: `not_found`.
 */
export async function vehicle(
  context: VendorContext,
  params: ParamsOf<'vehicle'>,
  options: CallOptions = {},
): Promise<VendorResult<VehicleResponse>> {
  const response = await context.send({
    call: CALL,
    method: 'GET',
    path: '/vehicles/v3',
    query: presentQuery(params, KEYS),
    signal: options.signal,
  });
  return interpret(CALL, response, vehicleResponseSchema, { notFoundIsAnswer: true });
}
