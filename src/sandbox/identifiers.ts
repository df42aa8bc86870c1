import { cnpj, cpf } from 'cpf-cnpj-validator';
import { JudicialProcess } from 'validation-br/judicial-process';
import { PIS } from 'validation-br/pis-pasep';
import { Renavam } from 'validation-br/renavam';
import type { Prng } from './random.js';

const MASK_CHARS = /[\s./-]/g;

/** Removes the punctuation mask (dots, slashes, dashes, spaces) and upper-cases. */
export function stripMask(value: string): string {
  return value.replace(MASK_CHARS, '').toUpperCase();
}

/**
 * Valid check digits, and not one digit repeated. Not the library's isValid: it also refuses
 * 12345678909, whose check digits are valid and which is the contract's own sample tax id; the
 * spec refuses no number with valid check digits.
 */
function isCpf(digits: string): boolean {
  return (
    /^\d{11}$/.test(digits) && !/^(\d)\1{10}$/.test(digits) && completeCpf(digits.slice(0, 9)) === digits
  );
}

/** An 11-digit person tax id with valid check digits, or undefined. Accepts the mask. */
export function normaliseCpf(value: string): string | undefined {
  const digits = stripMask(value);
  return isCpf(digits) ? digits : undefined;
}

/** A 14-character company tax id (numeric or the new alphanumeric form) with valid check digits. */
export function normaliseCnpj(value: string): string | undefined {
  const raw = stripMask(value);
  return /^[0-9A-Z]{12}\d{2}$/.test(raw) && cnpj.isValid(raw) ? raw : undefined;
}

/** A person or company tax id written in digits only (the lawsuit search rule). */
export function normaliseDigitsTaxId(value: string): string | undefined {
  if (!/^\d+$/.test(value)) return undefined;
  if (value.length === 11) return isCpf(value) ? value : undefined;
  if (value.length === 14) return cnpj.isValid(value) ? value : undefined;
  return undefined;
}

function nineDigits(prng: Prng): string {
  for (;;) {
    const base = prng.digits(9);
    if (!/^(\d)\1{8}$/.test(base)) return base;
  }
}

export function completeCpf(nine: string): string {
  const ten = nine + String(cpf.verifierDigit(nine));
  return ten + String(cpf.verifierDigit(ten));
}

export function generateCpf(prng: Prng): string {
  return completeCpf(nineDigits(prng));
}

export function completeCnpj(twelve: string): string {
  const thirteen = twelve + String(cnpj.verifierDigit(twelve));
  return thirteen + String(cnpj.verifierDigit(thirteen));
}

/** A numeric company tax id of a head office (`0001` branch). */
export function generateCnpj(prng: Prng): string {
  return completeCnpj(`${prng.digits(8)}0001`);
}

export function generateRenavam(prng: Prng): string {
  const ten = `${String(prng.int(1, 9))}${prng.digits(9)}`;
  return ten + Renavam.checksum(ten);
}

/** Social identification number (NIS/PIS), 11 digits with its check digit. */
export function generateNis(prng: Prng): string {
  const ten = `1${prng.digits(9)}`;
  return ten + PIS.checksum(ten);
}

export function isValidNis(value: string): boolean {
  return /^\d{11}$/.test(value) && PIS.checksum(value.slice(0, 10)) === value.slice(10);
}

export interface CnjParts {
  sequence: string;
  year: number;
  /** J: justice branch (4 federal, 5 labour, 6 electoral, 8 state, 9 state military...). */
  branch: string;
  /** TR: court within the branch, two digits. */
  court: string;
  origin: string;
}

/**
 * Unique lawsuit number (CNJ Resolution 65/2008): NNNNNNN DD AAAA J TR OOOO, digits only,
 * check digits by ISO 7064 mod 97-10 (validation-br computes them).
 */
export function buildCnjNumber(parts: CnjParts): string {
  const withoutCheck = `${parts.sequence}${String(parts.year)}${parts.branch}${parts.court}${parts.origin}`;
  const check = JudicialProcess.checksum(withoutCheck);
  return `${parts.sequence}${check}${withoutCheck.slice(7)}`;
}

export function parseCnjNumber(value: string): CnjParts | undefined {
  const digits = stripMask(value);
  if (!/^\d{20}$/.test(digits)) return undefined;
  const withoutCheck = digits.slice(0, 7) + digits.slice(9);
  if (digits[13] === '0' || JudicialProcess.checksum(withoutCheck) !== digits.slice(7, 9)) return undefined;
  return {
    sequence: digits.slice(0, 7),
    year: Number(digits.slice(9, 13)),
    branch: digits.slice(13, 14),
    court: digits.slice(14, 16),
    origin: digits.slice(16, 20),
  };
}

const PLATE_LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXY';
const VIN_ALPHABET = 'ABCDEFGHJKLMNPRSTUVWXYZ0123456789';

/** Mercosur plate `AAA9A99` (the fifth character a letter). */
export function generatePlate(prng: Prng): string {
  return `${prng.letters(3, PLATE_LETTERS)}${prng.digits(1)}${prng.letters(1, 'ABCDEFGHIJ')}${prng.digits(2)}`;
}

/** The earlier form of a Mercosur plate (letter A..J back to digit 0..9), or null when not Mercosur. */
export function preMercosurPlate(plate: string): string | null {
  const match = /^([A-Z]{3}\d)([A-J])(\d{2})$/.exec(plate);
  if (!match) return null;
  const [, head = '', letter = 'A', tail = ''] = match;
  return `${head}${String(letter.charCodeAt(0) - 65)}${tail}`;
}

export function generateChassis(prng: Prng): string {
  return `9${prng.letters(16, VIN_ALPHABET)}`;
}

export function formatCpf(digits: string): string {
  return cpf.format(digits);
}

export function formatCnpj(value: string): string {
  return cnpj.format(value);
}
