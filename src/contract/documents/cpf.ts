import { cpf as cpfLibrary } from 'cpf-cnpj-validator';
import { isRepeatedCharacter, onlyDigits } from './text.js';

/**
 * CPF (person tax id): 11 digits, bare or masked `000.000.000-00`; leading zeros are part of
 * the number (vendor-api.md, "GET /receita-federal-and-sintegra": "all characters, including
 * leading zeros, must be passed").
 *
 * Library choice: cpf-cnpj-validator computes the check digits (`verifierDigit`), but its
 * `isValid` is not used: it blacklists 12345678909, whose check digits are valid and which is
 * the contract's own sample tax id, and in loose mode it accepts any junk around the digits.
 * validation-br's isCPF strips separators anywhere ("5299822472-5" passes). The shape check is
 * therefore ours: the official mask or 11 bare digits, nothing else.
 */
const CPF_SHAPE = /^(?:\d{11}|\d{3}\.\d{3}\.\d{3}-\d{2})$/;

export function cpfCheckDigits(firstNine: string): string {
  const first = cpfLibrary.verifierDigit(firstNine);
  const second = cpfLibrary.verifierDigit(`${firstNine}${first}`);
  return `${first}${second}`;
}

/** What is wrong with a CPF, in words a person can act on; undefined when it is valid. */
export function cpfProblem(value: string): string | undefined {
  if (!CPF_SHAPE.test(value)) return 'must be 11 digits, bare or masked as 000.000.000-00';
  const digits = onlyDigits(value);
  if (isRepeatedCharacter(digits)) return 'a single repeated digit is not an issued CPF';
  if (cpfCheckDigits(digits.slice(0, 9)) !== digits.slice(9)) return 'invalid check digits';
  return undefined;
}

export function isValidCpf(value: string): boolean {
  return cpfProblem(value) === undefined;
}

/** The 11 digits of a CPF, mask removed, leading zeros kept. */
export function normalizeCpf(value: string): string {
  return onlyDigits(value);
}
