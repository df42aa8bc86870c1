import { isPIS } from 'validation-br';
import { isRepeatedCharacter, onlyDigits } from './text.js';

/**
 * NIS / PIS / PASEP / NIT (one numbering, one modulo 11 check digit): 11 digits, bare or
 * masked `000.00000.00-0`. validation-br's check digit is right; the shape is checked here
 * because the library drops dots and hyphens wherever they are.
 */
const NIS_SHAPE = /^(?:\d{11}|\d{3}\.\d{5}\.\d{2}-\d)$/;

export function nisProblem(value: string): string | undefined {
  if (!NIS_SHAPE.test(value)) return 'must be 11 digits, bare or masked as 000.00000.00-0';
  const digits = onlyDigits(value);
  if (isRepeatedCharacter(digits)) return 'a single repeated digit is not an issued NIS';
  return isPIS(digits) ? undefined : 'invalid check digit';
}

export function isValidNis(value: string): boolean {
  return nisProblem(value) === undefined;
}

export function normalizeNis(value: string): string {
  return onlyDigits(value);
}
