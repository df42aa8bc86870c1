import type { ParamsOf } from '../../contract/params.js';
import type { VendorCall } from '../errors.js';
import { interpret } from '../respond.js';
import { lawsuitByNumberResponseSchema, type LawsuitByNumberResponse } from '../schemas/lawsuits.js';
import type { CallOptions, VendorContext, VendorResult } from '../types.js';

const CALL: VendorCall = { operation: 'lawsuit-by-number', route: 'GET /lawsuits-by-number/v2' };

/**
 * GET /lawsuits-by-number/v2?lawsuitNumber=. The number travels as 20 digits: the spec does
 * not say which form it takes, and digits only is how the vendor itself writes it
 * (`numeroProcessoUnico`, "digits only in the sample").
 */
export async function lawsuitByNumber(
  context: VendorContext,
  params: ParamsOf<'lawsuit-by-number'>,
  options: CallOptions = {},
): Promise<VendorResult<LawsuitByNumberResponse>> {
  const { lawsuitNumber } = params;
  const response = await context.send({
    call: CALL,
    method: 'GET',
    path: '/lawsuits-by-number/v2',
    query: [['lawsuitNumber', lawsuitNumber]],
    signal: options.signal,
  });
  return interpret(CALL, response, lawsuitByNumberResponseSchema);
}
