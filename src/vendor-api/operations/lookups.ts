import type { z } from 'zod';
import type { Operation } from '../../contract/operations.js';
import type { LawsuitsByPartyParams, ParamsOf } from '../../contract/params.js';
import { LAWSUIT_FILTER_KEYS } from '../../contract/param-rules/lawsuit-filters.js';
import type { VendorCall } from '../errors.js';
import { presentQuery } from '../query.js';
import { interpret, type InterpretOptions } from '../respond.js';
import {
  lawsuitByNumberResponseSchema,
  lawsuitsResponseSchema,
  lawsuitsSummaryResponseSchema,
} from '../schemas/lawsuits.js';
import {
  companyPartnersResponseSchema,
  esocialResponseSchema,
  liftEsocialBody,
  stateRegistrationResponseSchema,
} from '../schemas/registry.js';
import { vehicleResponseSchema } from '../schemas/vehicle.js';
import type { CallOptions, VendorContext, VendorRequest, VendorResult } from '../types.js';

/**
 * The operations that are one GET: params in the query, the answer parsed by one schema. Each
 * differs only in its path, its query and how its answer reads, so each is one line of data.
 */
function lookup<O extends Operation, S extends z.ZodType>(
  operation: O,
  path: string,
  query: (params: ParamsOf<O>) => VendorRequest['query'],
  schema: S,
  interpretOptions: InterpretOptions = {},
) {
  const call: VendorCall = { operation, route: `GET ${path}` };
  return async (
    context: VendorContext,
    params: ParamsOf<O>,
    options: CallOptions = {},
  ): Promise<VendorResult<z.output<S>>> => {
    const response = await context.send({
      call,
      method: 'GET',
      path,
      query: query(params),
      signal: options.signal,
      beforeSend: options.beforeSend,
    });
    return interpret(call, response, schema, interpretOptions);
  };
}

/** GET /lawsuits-summary/v1?taxId=: counts by court, justice segment and year. */
export const lawsuitsSummary = lookup(
  'lawsuits-summary',
  '/lawsuits-summary/v1',
  ({ taxId }) => [['taxId', taxId]],
  lawsuitsSummaryResponseSchema,
);

/**
 * GET /lawsuits-by-number/v2?lawsuitNumber=. The number travels as 20 digits: the spec does
 * not say which form it takes, and digits only is how the vendor itself writes it
 * (`numeroProcessoUnico`, "digits only in the sample").
 */
export const lawsuitByNumber = lookup(
  'lawsuit-by-number',
  '/lawsuits-by-number/v2',
  ({ lawsuitNumber }) => [['lawsuitNumber', lawsuitNumber]],
  lawsuitByNumberResponseSchema,
);

/** GET /lawsuits/v2 with exactly one search parameter and optional filters. */
export const lawsuitsByParty = lookup(
  'lawsuits-by-party',
  '/lawsuits/v2',
  lawsuitsQuery,
  lawsuitsResponseSchema,
);

/** GET /receita-federal-cnpj-qsa?taxId=<CNPJ>: partners and administrators. */
export const companyPartners = lookup(
  'company-partners',
  '/receita-federal-cnpj-qsa',
  ({ taxId }) => [['taxId', taxId]],
  companyPartnersResponseSchema,
);

/** GET /receita-federal-and-sintegra by cnpj, cpf + uf, or ie + uf (params.ts enforces one mode). */
export const stateRegistration = lookup(
  'state-registration',
  '/receita-federal-and-sintegra',
  (params) => presentQuery(params, ['cnpj', 'cpf', 'ie', 'uf']),
  stateRegistrationResponseSchema,
);

/**
 * GET /esocial-qualificacao-cadastral with taxId, birthdate (DD/MM/YYYY), nis and name. The
 * answer is normalised to the envelope shape whether the vendor wraps it in `data` or not.
 */
export const esocialEligibility = lookup(
  'esocial-eligibility',
  '/esocial-qualificacao-cadastral',
  ({ taxId, birthdate, nis, name }) => [
    ['taxId', taxId],
    ['birthdate', birthdate],
    ['nis', nis],
    ['name', name],
  ],
  esocialResponseSchema,
  { prepare: liftEsocialBody },
);

/**
 * GET /vehicles/v3 by exactly one of plate, registry id (RENAVAM) or chassis, letters and
 * digits only (params.ts drops the plate hyphen). A 404 means nothing found: `not_found`.
 */
export const vehicle = lookup(
  'vehicle',
  '/vehicles/v3',
  (params) => presentQuery(params, ['licensePlate', 'registryId', 'chassis']),
  vehicleResponseSchema,
  { notFoundIsAnswer: true },
);

/**
 * The query of GET /lawsuits/v2 (vendor-api.md):
 * - the search parameter as is: the quoting rule is stated for filters only, and `taxId`
 *   "matches digits only" (params.ts already removed the mask);
 * - every filter value in double quotes: "filter values are written in quotes";
 * - a filter with several values repeats the parameter once per value
 *   (`courts="TJ-SP"&courts="TJ-RJ"`). The spec does not show how values combine; repeating
 *   is the common HTTP convention and keeps each value in its own quotes, where a joined
 *   list would need a separator the spec never names.
 */
export function lawsuitsQuery(params: LawsuitsByPartyParams): [string, string][] {
  const query = presentQuery(params, ['taxId', 'partName', 'exactPartName']);
  for (const key of LAWSUIT_FILTER_KEYS) {
    const value = params[key];
    if (value === undefined) continue;
    const values = Array.isArray(value) ? value : [String(value)];
    for (const one of values) query.push([key, `"${one}"`]);
  }
  return query;
}
