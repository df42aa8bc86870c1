import type { LawsuitsByPartyParams, ParamsOf } from '../../contract/params.js';
import type { VendorCall } from '../errors.js';
import { LAWSUIT_FILTER_KEYS } from '../../contract/param-rules/lawsuit-filters.js';
import { presentQuery } from '../query.js';
import { interpret } from '../respond.js';
import { lawsuitsResponseSchema, type LawsuitsResponse } from '../schemas/lawsuits.js';
import type { CallOptions, VendorContext, VendorResult } from '../types.js';

const CALL: VendorCall = { operation: 'lawsuits-by-party', route: 'GET /lawsuits/v2' };
const SEARCH_KEYS = ['taxId', 'partName', 'exactPartName'] as const;

/** GET /lawsuits/v2 with exactly one search parameter and optional filters. */
export async function lawsuitsByParty(
  context: VendorContext,
  params: ParamsOf<'lawsuits-by-party'>,
  options: CallOptions = {},
): Promise<VendorResult<LawsuitsResponse>> {
  const response = await context.send({
    call: CALL,
    method: 'GET',
    path: '/lawsuits/v2',
    query: lawsuitsQuery(params),
    signal: options.signal,
  });
  return interpret(CALL, response, lawsuitsResponseSchema);
}

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
  const query = presentQuery(params, SEARCH_KEYS);
  for (const key of LAWSUIT_FILTER_KEYS) {
    const value = params[key];
    if (value === undefined) continue;
    const values = Array.isArray(value) ? value : [String(value)];
    for (const one of values) query.push([key, `"${one}"`]);
  }
  return query;
}
