import type { ParamsOf } from '../../contract/params.js';
import type { VendorCall } from '../errors.js';
import { presentQuery } from '../query.js';
import { interpret } from '../respond.js';
import { stateRegistrationResponseSchema, type StateRegistrationResponse } from '../schemas/registry.js';
import type { CallOptions, VendorContext, VendorResult } from '../types.js';

const CALL: VendorCall = { operation: 'state-registration', route: 'GET /receita-federal-and-sintegra' };
const KEYS = ['cnpj', 'cpf', 'ie', 'uf'] as const;

/** GET /receita-federal-and-sintegra by cnpj, cpf + uf, or ie + uf (params.ts enforces one mode). */
export async function stateRegistration(
  context: VendorContext,
  params: ParamsOf<'state-registration'>,
  options: CallOptions = {},
): Promise<VendorResult<StateRegistrationResponse>> {
  const response = await context.send({
    call: CALL,
    method: 'GET',
    path: '/receita-federal-and-sintegra',
    query: presentQuery(params, KEYS),
    signal: options.signal,
  });
  return interpret(CALL, response, stateRegistrationResponseSchema);
}
