import type { FastifyInstance } from 'fastify';
import { buildLawsuit } from '../data/lawsuit-record.js';
import {
  applyLawsuitFilters,
  findPartyLawsuits,
  normaliseText,
  parseLawsuitFilters,
  summariseLawsuits,
  type FoundLawsuit,
  type LawsuitFilters,
  type PartySearchParam,
} from '../data/lawsuit-search.js';
import { badRequest, envelope, singleParam } from '../envelope.js';
import { normaliseDigitsTaxId, parseCnjNumber, stripMask } from '../identifiers.js';
import { isLawsuitNotFound } from '../scenarios.js';
import { setFingerprint, type RouteDeps } from './deps.js';

const SEARCH_PARAMS = ['taxId', 'taxIdFull', 'partName', 'name', 'exactPartName', 'exactName'] as const;
/** Listed by the spec as "announced, not yet available": refused with 400 naming the parameter. */
const ANNOUNCED = new Set<string>(['taxIdFull', 'name', 'exactName']);

function canonicalFilters(filters: LawsuitFilters): string {
  return Object.entries(filters)
    .filter(([, value]) => value !== undefined)
    .map(
      ([key, value]) =>
        `${key}=${value instanceof Set ? [...(value as Set<string>)].sort().join('|') : String(value)}`,
    )
    .sort()
    .join('&');
}

function searchValue(param: PartySearchParam, raw: string): string {
  if (param === 'taxId') {
    const taxId = normaliseDigitsTaxId(raw.trim());
    if (taxId === undefined) throw badRequest('taxId must be a valid CPF or CNPJ written in digits only');
    return taxId;
  }
  const name = normaliseText(raw.replace(/^["']|["']$/g, ''));
  if (name === '') throw badRequest(`${param} must not be empty`);
  return name;
}

export function registerLawsuitRoutes(app: FastifyInstance, deps: RouteDeps): void {
  const { cache } = deps;
  const partyLawsuits = (param: PartySearchParam, value: string): FoundLawsuit[] =>
    cache.getOrBuild(`lawsuits:${param}:${value}`, () => findPartyLawsuits(param, value));

  app.get('/lawsuits/v2', (request) => {
    const query = request.query as Record<string, unknown>;
    const given = SEARCH_PARAMS.filter((name) => query[name] !== undefined);
    const [param] = given;
    if (given.length !== 1 || param === undefined) {
      throw badRequest(`exactly one search parameter of ${SEARCH_PARAMS.join(', ')} must be given`);
    }
    if (ANNOUNCED.has(param))
      throw badRequest(`search parameter '${param}' is announced but not yet available`);
    const value = searchValue(param as PartySearchParam, singleParam(query, param) ?? '');
    const filters = parseLawsuitFilters(query);
    setFingerprint(request, `${param}=${value}&${canonicalFilters(filters)}`);
    const data = applyLawsuitFilters(partyLawsuits(param as PartySearchParam, value), filters);
    // The party search lives at v2 but its sample answers with version v1 (spec, "Versioning").
    return envelope(request, 'v1', data);
  });

  app.get('/lawsuits-summary/v1', (request) => {
    const raw = singleParam(request.query, 'taxId');
    if (raw === undefined) throw badRequest("parameter 'taxId' is required");
    const taxId = normaliseDigitsTaxId(stripMask(raw));
    if (taxId === undefined) throw badRequest('taxId must be a valid CPF or CNPJ');
    setFingerprint(request, taxId);
    const summary = cache.getOrBuild(`summary:${taxId}`, () =>
      summariseLawsuits(partyLawsuits('taxId', taxId)),
    );
    return envelope(request, 'v1', [summary]);
  });

  app.get('/lawsuits-by-number/v2', (request) => {
    const raw = singleParam(request.query, 'lawsuitNumber');
    if (raw === undefined) throw badRequest("parameter 'lawsuitNumber' is required");
    const parts = parseCnjNumber(raw);
    if (parts === undefined)
      throw badRequest('lawsuitNumber must be a unique lawsuit number (20 digits, valid check digits)');
    const number = stripMask(raw);
    setFingerprint(request, number);
    // No-result behaviour is not shown in the spec; the sandbox answers 200 with an empty list.
    const data = isLawsuitNotFound(number)
      ? []
      : [cache.getOrBuild(`lawsuit:${number}`, () => buildLawsuit(number, parts, true))];
    return envelope(request, 'v2', data);
  });
}
