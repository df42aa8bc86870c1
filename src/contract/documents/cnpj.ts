import { cnpj as cnpjLibrary } from 'cpf-cnpj-validator';
import { isRepeatedCharacter, stripMask } from './text.js';

/**
 * CNPJ (company tax id), numeric or ALPHANUMERIC (issued from July 2026, RFB technical note
 * 49/2024): 12 characters from 0-9/A-Z then 2 numeric check digits, bare or masked
 * `AA.AAA.AAA/AAAA-99`. Letters are compared upper case (a lower-case letter can only mean
 * the upper-case one); leading zeros are kept.
 *
 * Library choice: cpf-cnpj-validator's `verifierDigit` implements the modulo 11 with
 * (char code - 48) values, so it handles letters; its strict `isValid` agrees with it on all
 * the published samples (see test/unit/contract/documents). The shape check is ours so that the
 * message can say whether the format or the check digits are wrong.
 */
const CNPJ_SHAPE = /^(?:[0-9A-Z]{12}\d{2}|[0-9A-Z]{2}\.[0-9A-Z]{3}\.[0-9A-Z]{3}\/[0-9A-Z]{4}-\d{2})$/;

export function cnpjCheckDigits(firstTwelve: string): string {
  const first = cnpjLibrary.verifierDigit(firstTwelve);
  const second = cnpjLibrary.verifierDigit(`${firstTwelve}${first}`);
  return `${first}${second}`;
}

export function cnpjProblem(value: string): string | undefined {
  const upper = value.toUpperCase();
  if (!CNPJ_SHAPE.test(upper)) {
    return 'must be 14 characters (12 letters or digits, then 2 check digits), bare or masked as 00.000.000/0000-00';
  }
  const bare = stripMask(upper);
  if (isRepeatedCharacter(bare)) return 'a single repeated digit is not an issued CNPJ';
  if (cnpjCheckDigits(bare.slice(0, 12)) !== bare.slice(12)) return 'invalid check digits';
  return undefined;
}

export function isValidCnpj(value: string): boolean {
  return cnpjProblem(value) === undefined;
}

/** The 14 characters of a CNPJ, mask removed, letters upper case, leading zeros kept. */
export function normalizeCnpj(value: string): string {
  return stripMask(value.toUpperCase());
}

export function isAlphanumericCnpj(value: string): boolean {
  return /[A-Z]/i.test(value);
}
