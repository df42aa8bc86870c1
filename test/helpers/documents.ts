/**
 * Seeded generators of valid Brazilian documents, and the official masks, for tests: the
 * service only checks and normalises documents (src/contract/documents/), it never makes them.
 * mulberry32 keeps every generated value reproducible from a number (not cryptographically
 * strong, and need not be).
 */
import { JudicialProcess } from 'validation-br/judicial-process';
import { PIS } from 'validation-br/pis-pasep';
import { Renavam } from 'validation-br/renavam';
import {
  cnpjCheckDigits,
  cpfCheckDigits,
  isValidPlate,
  normalizeCnj,
  normalizeCnpj,
  normalizeCpf,
  normalizeNis,
  normalizePlate,
} from '../../src/contract/documents/index.js';

type RandomSource = () => number;

/** A small deterministic generator (mulberry32), so that a failing run can be repeated. */
export function seededRandom(seed: number): RandomSource {
  let state = Math.trunc(seed) >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A seeded source when a seed is given, Math.random otherwise. */
function randomSource(seed?: number): RandomSource {
  return seed === undefined ? Math.random : seededRandom(seed);
}

const DIGITS = '0123456789';
const UPPER_LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const VIN_ALPHABET = '0123456789ABCDEFGHJKLMNPRSTUVWXYZ';

function randomChars(random: RandomSource, alphabet: string, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet.charAt(Math.floor(random() * alphabet.length));
  return out;
}

function randomDigits(random: RandomSource, length: number): string {
  return randomChars(random, DIGITS, length);
}

function randomInt(random: RandomSource, min: number, max: number): number {
  return min + Math.floor(random() * (max - min + 1));
}

function isRepeatedCharacter(value: string): boolean {
  return value.length > 0 && value === value.charAt(0).repeat(value.length);
}

function nonRepeatedDigits(random: RandomSource, length: number): string {
  let digits = randomDigits(random, length);
  while (isRepeatedCharacter(digits)) digits = randomDigits(random, length);
  return digits;
}

export function formatCpf(value: string): string {
  return normalizeCpf(value).replace(/^(\d{3})(\d{3})(\d{3})(\d{2})$/, '$1.$2.$3-$4');
}

export function formatCnpj(value: string): string {
  return normalizeCnpj(value).replace(
    /^([0-9A-Z]{2})([0-9A-Z]{3})([0-9A-Z]{3})([0-9A-Z]{4})(\d{2})$/,
    '$1.$2.$3/$4-$5',
  );
}

export function formatCnj(value: string): string {
  return normalizeCnj(value).replace(/^(\d{7})(\d{2})(\d{4})(\d)(\d{2})(\d{4})$/, '$1-$2.$3.$4.$5.$6');
}

export function formatNis(value: string): string {
  return normalizeNis(value).replace(/^(\d{3})(\d{5})(\d{2})(\d)$/, '$1.$2.$3-$4');
}

export type PlateFormat = 'old' | 'mercosur';

export function plateFormat(value: string): PlateFormat | undefined {
  if (!isValidPlate(value)) return undefined;
  return /\d/.test(normalizePlate(value).charAt(4)) ? 'old' : 'mercosur';
}

/** A valid CPF, deterministic for a given seed (random without one). */
export function generateCpf(seed?: number, options: { masked?: boolean } = {}): string {
  const firstNine = nonRepeatedDigits(randomSource(seed), 9);
  const cpf = `${firstNine}${cpfCheckDigits(firstNine)}`;
  return options.masked === true ? formatCpf(cpf) : cpf;
}

/** A valid CNPJ, deterministic for a given seed. Numeric ones get the head-office branch 0001. */
export function generateCnpj(
  seed?: number,
  options: { alphanumeric?: boolean; masked?: boolean } = {},
): string {
  const random = randomSource(seed);
  let firstTwelve: string;
  if (options.alphanumeric === true) {
    // Letters in the first 12 positions (the July 2026 format); at least one is guaranteed.
    const chars = randomChars(random, DIGITS + UPPER_LETTERS, 12);
    const at = randomInt(random, 0, 7);
    firstTwelve = `${chars.slice(0, at)}${randomChars(random, UPPER_LETTERS, 1)}${chars.slice(at + 1)}`;
  } else {
    firstTwelve = `${nonRepeatedDigits(random, 8)}0001`;
  }
  const cnpj = `${firstTwelve}${cnpjCheckDigits(firstTwelve)}`;
  return options.masked === true ? formatCnpj(cnpj) : cnpj;
}

/** A valid CNJ number, deterministic for a given seed; bare digits unless `masked: true`. */
export function generateCnj(seed?: number, options: { masked?: boolean } = {}): string {
  const random = randomSource(seed);
  const sequence = randomDigits(random, 7);
  const year = String(randomInt(random, 2000, 2025));
  const segment = String(randomInt(random, 1, 9));
  const court = String(randomInt(random, 1, 27)).padStart(2, '0');
  const origin = randomDigits(random, 4);
  const withoutCheck = `${sequence}${year}${segment}${court}${origin}`;
  const digits = `${sequence}${JudicialProcess.checksum(withoutCheck)}${year}${segment}${court}${origin}`;
  return options.masked === true ? formatCnj(digits) : digits;
}

/** A valid NIS, deterministic for a given seed. */
export function generateNis(seed?: number, options: { masked?: boolean } = {}): string {
  const firstTen = nonRepeatedDigits(randomSource(seed), 10);
  const nis = `${firstTen}${PIS.checksum(firstTen)}`;
  return options.masked === true ? formatNis(nis) : nis;
}

/** A valid RENAVAM, deterministic for a given seed. */
export function generateRenavam(seed?: number): string {
  const firstTen = nonRepeatedDigits(randomSource(seed), 10);
  return `${firstTen}${Renavam.checksum(firstTen)}`;
}

/** A plate, deterministic for a given seed; Mercosur unless `format: 'old'`. */
export function generatePlate(seed?: number, options: { format?: PlateFormat } = {}): string {
  const random = randomSource(seed);
  const letters = randomChars(random, UPPER_LETTERS, 3);
  const fifth = randomChars(random, options.format === 'old' ? DIGITS : UPPER_LETTERS, 1);
  return `${letters}${randomChars(random, DIGITS, 1)}${fifth}${randomChars(random, DIGITS, 2)}`;
}

/** A well-formed VIN, deterministic for a given seed (Brazilian WMI prefix 9BW). */
export function generateChassis(seed?: number): string {
  return `9BW${randomChars(randomSource(seed), VIN_ALPHABET, 14)}`;
}
