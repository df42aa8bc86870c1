import type { ParamsOf } from '../../contract/params.js';
import type { VendorCall } from '../errors.js';
import { interpret } from '../respond.js';
import { companyPartnersResponseSchema, type CompanyPartnersResponse } from '../schemas/registry.js';
import type { CallOptions, VendorContext, VendorResult } from '../types.js';

const CALL: VendorCall = { operation: 'company-partners', route: 'GET /receita-federal-cnpj-qsa' };

/** GET /receita-federal-cnpj-qsa?taxId=<CNPJ>: partners and administrators. */
export async function companyPartners(
  context: VendorContext,
  params: ParamsOf<'company-partners'>,
  options: CallOptions = {},
): Promise<VendorResult<CompanyPartnersResponse>> {
  const { taxId } = params;
  const response = await context.send({
    call: CALL,
    method: 'GET',
    path: '/receita-federal-cnpj-qsa',
    query: [['taxId', taxId]],
    signal: options.signal,
  });
  return interpret(CALL, response, companyPartnersResponseSchema);
}
