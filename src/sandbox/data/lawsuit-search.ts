import { COURTS, LAWSUIT_FIELDS, LAWSUIT_STATUSES, SEGMENTS } from '../../contract/vocabulary.js';
import { badRequest } from '../envelope.js';
import { parseCnjNumber } from '../identifiers.js';
import { Prng } from '../random.js';
import { hasNoLawsuits, hasNoLawsuitsByName } from '../scenarios.js';
import { buildLawsuit, buildParty, generateLawsuitNumber } from './lawsuit-record.js';
import { SURNAMES, companyName, personName } from './pools.js';

export type PartySearchParam = 'taxId' | 'partName' | 'exactPartName';

export interface FoundLawsuit {
  record: Record<string, unknown>;
  /** Pole of the searched party in this lawsuit (the `partPole` filter). */
  pole: 'ATIVO' | 'PASSIVO';
}

/** Upper case, no accents, single spaces: the spelling rule of the filters and names. */
export function normaliseText(value: string): string {
  return value
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toUpperCase()
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * Lawsuits in which the searched party appears, seeded by the normalised search value. A name
 * has lawsuits of its own, which the exact search finds, and there are lawsuits of longer names
 * that contain it, which the contains search finds as well (vendor-api.md, GET /lawsuits/v2):
 * every `exactPartName` answer is part of the `partName` answer for the same text.
 */
export function findPartyLawsuits(param: PartySearchParam, value: string): FoundLawsuit[] {
  const none = param === 'taxId' ? hasNoLawsuits(value) : hasNoLawsuitsByName(value);
  if (none) return [];
  if (param === 'taxId') {
    const prng = Prng.from(`party:taxId:${value}`);
    const nome = value.length === 14 ? companyName(prng) : personName(prng);
    return partyLawsuits(prng, prng.int(1, 8), () => nome, value);
  }
  const own = Prng.from(`party:name:${value}`);
  const exact = partyLawsuits(own, own.int(1, 8), () => value);
  if (param === 'exactPartName') return exact;
  const longer = Prng.from(`party:longer-names:${value}`);
  return [...exact, ...partyLawsuits(longer, longer.int(0, 4), () => `${value} ${longer.pick(SURNAMES)}`)];
}

function partyLawsuits(prng: Prng, count: number, nameOf: () => string, taxId?: string): FoundLawsuit[] {
  return Array.from({ length: count }, () => {
    const number = generateLawsuitNumber(prng);
    const parts = parseCnjNumber(number);
    if (parts === undefined) throw new Error('generated an invalid lawsuit number');
    const record = buildLawsuit(number, parts, false);
    const pole = prng.bool(0.6) ? 'PASSIVO' : 'ATIVO';
    const nome = nameOf();
    const party = buildParty(prng, pole, String(record.uf), taxId === undefined ? { nome } : { nome, taxId });
    const partes = record.partes as unknown[];
    record.partes = pole === 'ATIVO' ? [party, ...partes] : [...partes, party];
    return { record, pole };
  });
}

export interface LawsuitFilters {
  grade?: Set<string>;
  courts?: Set<string>;
  partPole?: Set<string>;
  lawsuitStatuses?: Set<string>;
  lawsuitFields?: Set<string>;
  topics?: Set<string>;
  lawsuitTypes?: Set<string>;
  segment?: Set<string>;
  distributionDate?: string;
  distributionDateFinal?: string;
  distributionDateEqual?: string;
}

type SetFilter =
  | 'grade'
  | 'courts'
  | 'partPole'
  | 'lawsuitStatuses'
  | 'lawsuitFields'
  | 'topics'
  | 'lawsuitTypes'
  | 'segment';

const ALLOWED: Record<SetFilter, ReadonlySet<string> | undefined> = {
  grade: new Set(['1', '2', '3', '4']),
  courts: new Set(COURTS),
  partPole: new Set(['ATIVO', 'PASSIVO']),
  lawsuitStatuses: new Set(LAWSUIT_STATUSES),
  lawsuitFields: new Set(LAWSUIT_FIELDS),
  topics: undefined,
  lawsuitTypes: undefined,
  segment: new Set(SEGMENTS),
};

/**
 * Filter values are written in quotes (spec); how several combine is not shown, so the sandbox
 * accepts quoted or bare values, repeated parameters and comma-separated lists alike.
 */
export function splitFilterValues(raw: unknown): string[] {
  const texts = Array.isArray(raw) ? raw : [raw];
  const out: string[] = [];
  for (const text of texts) {
    if (typeof text !== 'string') continue;
    // Values hold no punctuation (spec), so a comma always separates two values.
    for (const piece of text.split(',')) {
      const value = normaliseText(piece.trim().replace(/^["']|["']$/g, ''));
      if (value !== '') out.push(value);
    }
  }
  return out;
}

function dateFilter(query: Record<string, unknown>, name: string): string | undefined {
  if (query[name] === undefined) return undefined;
  const values = splitFilterValues(query[name]);
  const [value] = values;
  if (
    values.length !== 1 ||
    value === undefined ||
    !/^\d{4}-\d{2}-\d{2}$/.test(value) ||
    Number.isNaN(Date.parse(value))
  ) {
    throw badRequest(`filter '${name}' must be one date YYYY-MM-DD`);
  }
  return value;
}

export function parseLawsuitFilters(query: Record<string, unknown>): LawsuitFilters {
  const filters: LawsuitFilters = {};
  for (const name of Object.keys(ALLOWED) as SetFilter[]) {
    if (query[name] === undefined) continue;
    const values = splitFilterValues(query[name]);
    if (values.length === 0) throw badRequest(`filter '${name}' has no value`);
    const allowed = ALLOWED[name];
    const bad = allowed === undefined ? undefined : values.find((value) => !allowed.has(value));
    if (bad !== undefined) throw badRequest(`filter '${name}' has a value outside its list`);
    filters[name] = new Set(allowed === undefined ? values.map(filterName) : values);
  }
  filters.distributionDate = dateFilter(query, 'distributionDate');
  filters.distributionDateFinal = dateFilter(query, 'distributionDateFinal');
  filters.distributionDateEqual = dateFilter(query, 'distributionDateEqual');
  if (filters.distributionDateFinal !== undefined && filters.distributionDate === undefined) {
    throw badRequest("filter 'distributionDateFinal' is used only together with 'distributionDate'");
  }
  return filters;
}

/**
 * A class or subject name as a filter names it: the spec writes filter values "without
 * punctuation or accents" (vendor-api.md), so "ACAO TRABALHISTA - RITO ORDINARIO" is asked for
 * as "ACAO TRABALHISTA RITO ORDINARIO". Both sides are compared in this form.
 */
function filterName(value: string): string {
  return normaliseText(value.replace(/[^\p{L}\p{N}\s]/gu, ' '));
}

function matches(found: FoundLawsuit, f: LawsuitFilters): boolean {
  const r = found.record as {
    grauProcesso: number;
    tribunal: string;
    segmento?: string;
    dataDistribuicao: string;
    classeProcessual: { nome: string };
    assuntosCNJ: { titulo: string }[];
    statusPredictus: { statusProcesso: string; ramoDireito: string };
  };
  const day = r.dataDistribuicao.slice(0, 10);
  return (
    (f.grade === undefined || f.grade.has(String(r.grauProcesso))) &&
    (f.courts === undefined || f.courts.has(r.tribunal)) &&
    (f.partPole === undefined || f.partPole.has(found.pole)) &&
    (f.lawsuitStatuses === undefined || f.lawsuitStatuses.has(r.statusPredictus.statusProcesso)) &&
    (f.lawsuitFields === undefined || f.lawsuitFields.has(r.statusPredictus.ramoDireito)) &&
    (f.topics === undefined || r.assuntosCNJ.some((s) => f.topics?.has(filterName(s.titulo)) === true)) &&
    (f.lawsuitTypes === undefined || f.lawsuitTypes.has(filterName(r.classeProcessual.nome))) &&
    (f.segment === undefined || (r.segmento !== undefined && f.segment.has(r.segmento))) &&
    (f.distributionDate === undefined || day >= f.distributionDate) &&
    (f.distributionDateFinal === undefined || day <= f.distributionDateFinal) &&
    (f.distributionDateEqual === undefined || day === f.distributionDateEqual)
  );
}

export function applyLawsuitFilters(
  found: readonly FoundLawsuit[],
  filters: LawsuitFilters,
): Record<string, unknown>[] {
  return found.filter((item) => matches(item, filters)).map((item) => item.record);
}

/** The summary record of a list: totals by court, by justice (segment or superior court), by year. */
export function summariseLawsuits(found: readonly FoundLawsuit[]) {
  const totalByCourt: Record<string, number> = {};
  const totalByJustice: Record<string, number> = {};
  const totalByYear: Record<string, number> = {};
  for (const { record } of found) {
    const court = String(record.tribunal);
    const justice = typeof record.segmento === 'string' ? record.segmento : court;
    const year = String(record.dataDistribuicao).slice(0, 4);
    totalByCourt[court] = (totalByCourt[court] ?? 0) + 1;
    totalByJustice[justice] = (totalByJustice[justice] ?? 0) + 1;
    totalByYear[year] = (totalByYear[year] ?? 0) + 1;
  }
  return { total: found.length, totalByCourt, totalByJustice, totalByYear };
}
