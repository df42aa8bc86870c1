/**
 * Trigger rules of the sandbox: which inputs produce which documented variation.
 * The routes call the predicates below, tests elsewhere call the pickers, so both sides
 * read the same rule. The table is repeated in src/sandbox/README.md.
 */
import { buildCnjNumber, completeCnpj, completeCpf, generateNis, stripMask } from './identifiers.js';
import { Prng } from './random.js';

/** Classification: a file of fewer bytes than this holds no document (200, `data: []`). */
export const EMPTY_CLASSIFICATION_UNDER_BYTES = 16;
/** Face retrieval: CPF ending in this digit has no identity document (404). */
export const FACE_NO_DOCUMENT_DIGIT = 0;
/** Face retrieval: CPF ending in this digit does not match the selfie (200, `match: false`). */
export const FACE_NO_MATCH_DIGIT = 1;
/** Face retrieval: only CPFs ending in this digit or above hold a passport. */
export const FACE_PASSPORT_FROM_DIGIT = 5;
/** Lawsuits by tax id and summary: a tax id ending in this digit has no lawsuits. */
export const NO_LAWSUITS_DIGIT = 2;
/** Lawsuits by name: a name containing this word has no lawsuits. */
export const NO_LAWSUITS_NAME_WORD = 'NINGUEM';
/** Lawsuit by number: a (valid) number starting with this prefix is not found (200, `data: []`). */
export const LAWSUIT_NOT_FOUND_PREFIX = '9999';
/** Vehicles: a plate or chassis starting with this prefix is not found (404); async ends in `error`. */
export const VEHICLE_NOT_FOUND_PREFIX = 'ZZZ';
/** Vehicles: a registry id (RENAVAM) starting with this prefix is not found (404). */
export const REGISTRY_ID_NOT_FOUND_PREFIX = '999';
/** Async vehicles: a plate starting with this prefix ends in `error` (so does the not-found prefix). */
export const ASYNC_ERROR_PREFIX = 'ERR';
/** State registration and partners: a tax id ending in this digit has no registration / no partner. */
export const REGISTRY_EMPTY_DIGIT = 4;
/** eSocial: a CPF ending in this digit gets the "birth date diverges" message. */
export const ESOCIAL_DIVERGENT_DIGIT = 3;

function lastDigit(taxId: string): number {
  return Number(stripMask(taxId).slice(-1));
}

export type FaceOutcome = 'match' | 'no-match' | 'no-document';

export function faceOutcome(cpf: string): FaceOutcome {
  const digit = lastDigit(cpf);
  if (digit === FACE_NO_DOCUMENT_DIGIT) return 'no-document';
  return digit === FACE_NO_MATCH_DIGIT ? 'no-match' : 'match';
}

export function holdsPassport(cpf: string): boolean {
  return lastDigit(cpf) >= FACE_PASSPORT_FROM_DIGIT;
}

export function isEmptyClassification(sizeBytes: number): boolean {
  return sizeBytes < EMPTY_CLASSIFICATION_UNDER_BYTES;
}

export function hasNoLawsuits(taxId: string): boolean {
  return lastDigit(taxId) === NO_LAWSUITS_DIGIT;
}

export function hasNoLawsuitsByName(normalisedName: string): boolean {
  return normalisedName.includes(NO_LAWSUITS_NAME_WORD);
}

export function isLawsuitNotFound(lawsuitNumber: string): boolean {
  return stripMask(lawsuitNumber).startsWith(LAWSUIT_NOT_FOUND_PREFIX);
}

export type VehicleSearchParam = 'licensePlate' | 'registryId' | 'chassis';

export function isVehicleNotFound(param: VehicleSearchParam, value: string): boolean {
  const upper = value.toUpperCase();
  return param === 'registryId'
    ? upper.startsWith(REGISTRY_ID_NOT_FOUND_PREFIX)
    : upper.startsWith(VEHICLE_NOT_FOUND_PREFIX);
}

export type AsyncFinalStatus = 'sucessful' | 'error';

export function asyncFinalStatus(licensePlate: string): AsyncFinalStatus {
  const upper = licensePlate.toUpperCase();
  return upper.startsWith(ASYNC_ERROR_PREFIX) || upper.startsWith(VEHICLE_NOT_FOUND_PREFIX)
    ? 'error'
    : 'sucessful';
}

/** The sample answers at the top level; the reference table puts the members under `data`. */
export type EsocialShape = 'top-level' | 'under-data';

export function esocialShape(cpf: string): EsocialShape {
  return lastDigit(cpf) % 2 === 0 ? 'top-level' : 'under-data';
}

export function isRegistryEmpty(taxId: string): boolean {
  return lastDigit(taxId) === REGISTRY_EMPTY_DIGIT;
}

// ---- Pickers: deterministic valid inputs for a scenario (index gives distinct values) ----

/** A valid CPF (11 digits, no mask) whose last digit is `digit`. */
export function cpfEndingIn(digit: number, index = 0): string {
  const prng = Prng.from(`cpf:${String(digit)}:${String(index)}`);
  for (;;) {
    const candidate = completeCpf(prng.digits(9));
    if (candidate.endsWith(String(digit)) && !/^(\d)\1{10}$/.test(candidate)) return candidate;
  }
}

/** A valid numeric head-office CNPJ (14 digits, no mask) whose last digit is `digit`. */
export function cnpjEndingIn(digit: number, index = 0): string {
  const prng = Prng.from(`cnpj:${String(digit)}:${String(index)}`);
  for (;;) {
    const candidate = completeCnpj(`${prng.digits(8)}0001`);
    if (candidate.endsWith(String(digit))) return candidate;
  }
}

/** Digit 8 is the "happy" person: face match with passport, lawsuits, eSocial at the top level. */
const CPF_SCENARIO_DIGITS = {
  happy: 8,
  'face-match': 8,
  'face-no-match': FACE_NO_MATCH_DIGIT,
  'face-no-document': FACE_NO_DOCUMENT_DIGIT,
  'face-without-passport': 3,
  'no-lawsuits': NO_LAWSUITS_DIGIT,
  'esocial-top-level': 8,
  'esocial-under-data': 7,
  'esocial-divergent': ESOCIAL_DIVERGENT_DIGIT,
  'registry-empty': REGISTRY_EMPTY_DIGIT,
} as const;
export type CpfScenario = keyof typeof CPF_SCENARIO_DIGITS;

export function cpfFor(scenario: CpfScenario, index = 0): string {
  return cpfEndingIn(CPF_SCENARIO_DIGITS[scenario], index);
}

export type CnpjScenario = 'happy' | 'no-lawsuits' | 'registry-empty';

export function cnpjFor(scenario: CnpjScenario, index = 0): string {
  const digit =
    scenario === 'happy' ? 8 : scenario === 'no-lawsuits' ? NO_LAWSUITS_DIGIT : REGISTRY_EMPTY_DIGIT;
  return cnpjEndingIn(digit, index);
}

export type PlateScenario = 'found' | 'not-found' | 'async-sucessful' | 'async-error';

/** A Mercosur plate (`AAA9A99`) for the scenario. */
export function plateFor(scenario: PlateScenario, index = 0): string {
  const prng = Prng.from(`plate:${scenario}:${String(index)}`);
  const tail = `${prng.digits(1)}${prng.letters(1, 'ABCDEFGHIJ')}${prng.digits(2)}`;
  if (scenario === 'not-found') return `${VEHICLE_NOT_FOUND_PREFIX}${tail}`;
  if (scenario === 'async-error') return `${ASYNC_ERROR_PREFIX}${tail}`;
  return `${prng.letters(1, 'ABCDEFGHIJKLMNOPQRSTUVWXY')}${prng.letters(2, 'ABCDFGHIJKLMNOPQSTUVWXY')}${tail}`;
}

export type LawsuitNumberScenario = 'found' | 'not-found';

/** A valid unique lawsuit number (20 digits, TJ-SP) for the by-number lookup. */
export function lawsuitNumberFor(scenario: LawsuitNumberScenario, index = 0): string {
  const prng = Prng.from(`lawsuit-number:${scenario}:${String(index)}`);
  const sequence =
    scenario === 'not-found' ? `${LAWSUIT_NOT_FOUND_PREFIX}${prng.digits(3)}` : `1${prng.digits(6)}`;
  return buildCnjNumber({ sequence, year: 2015 + (index % 10), branch: '8', court: '26', origin: '0100' });
}

/** A social identification number (NIS) with a valid or a wrong check digit. */
export function nisFor(scenario: 'valid' | 'invalid', index = 0): string {
  const nis = generateNis(Prng.from(`nis:${String(index)}`));
  if (scenario === 'valid') return nis;
  return nis.slice(0, 10) + String((Number(nis.slice(10)) + 1) % 10);
}
