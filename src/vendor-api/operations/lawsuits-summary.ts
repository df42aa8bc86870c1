import type { ParamsOf } from '../../contract/params.js';
import type { VendorCall } from '../errors.js';
import { interpret } from '../respond.js';
import { lawsuitsSummaryResponseSchema, type LawsuitsSummaryResponse } from '../schemas/lawsuits.js';
import type { CallOptions, VendorContext, VendorResult } from '../types.js';

const CALL: VendorCall = { operation: 'lawsuits-summary', route: 'GET /lawsuits-summary/v1' };

/** GET /lawsuits-summary/v1?taxId=: counts by court, justice segment and year. */
export async function lawsuitsSummary(
  context: VendorContext,
  params: ParamsOf<'lawsuits-summary'>,
  options: CallOptions = {},
): Promise<VendorResult<LawsuitsSummaryResponse>> {
  const { taxId } = params;
  const response = await context.send({
    call: CALL,
    method: 'GET',
    path: '/lawsuits-summary/v1',
    query: [['taxId', taxId]],
    signal: options.signal,
  });
  return interpret(CALL, response, lawsuitsSummaryResponseSchema);
}
