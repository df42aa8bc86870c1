import type { ParamsOf } from '../../contract/params.js';
import type { VendorCall } from '../errors.js';
import { interpret } from '../respond.js';
import { esocialResponseSchema, liftEsocialBody, type EsocialResponse } from '../schemas/registry.js';
import type { CallOptions, VendorContext, VendorResult } from '../types.js';

const CALL: VendorCall = { operation: 'esocial-eligibility', route: 'GET /esocial-qualificacao-cadastral' };

/**
 * GET /esocial-qualificacao-cadastral with taxId, birthdate (DD/MM/YYYY), nis and name. The
 * answer is normalised to the envelope shape whether the vendor wraps it in `data` or not.
 */
export async function esocialEligibility(
  context: VendorContext,
  params: ParamsOf<'esocial-eligibility'>,
  options: CallOptions = {},
): Promise<VendorResult<EsocialResponse>> {
  const response = await context.send({
    call: CALL,
    method: 'GET',
    path: '/esocial-qualificacao-cadastral',
    query: [
      ['taxId', params.taxId],
      ['birthdate', params.birthdate],
      ['nis', params.nis],
      ['name', params.name],
    ],
    signal: options.signal,
  });
  return interpret(CALL, response, esocialResponseSchema, { prepare: liftEsocialBody });
}
