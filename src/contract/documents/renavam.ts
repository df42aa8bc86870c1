import { isRenavam } from 'validation-br';
import { isRepeatedCharacter } from './text.js';

/**
 * RENAVAM (national vehicle registry id): 11 digits, the last a modulo 11 check digit.
 * validation-br computes the digit correctly, but strips hyphens and blanks anywhere; we check
 * the shape first (11 bare digits) and never pad the old 9-digit numbers: the caller writes
 * the leading zeros, exactly as the registry prints them.
 */
export function renavamProblem(value: string): string | undefined {
  if (!/^\d{11}$/.test(value)) {
    return 'must be 11 digits (write older 9-digit numbers with their two leading zeros)';
  }
  if (isRepeatedCharacter(value)) return 'a single repeated digit is not an issued RENAVAM';
  return isRenavam(value) ? undefined : 'invalid check digit';
}

export function isValidRenavam(value: string): boolean {
  return renavamProblem(value) === undefined;
}
