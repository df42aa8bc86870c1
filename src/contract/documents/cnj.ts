import { isJudicialProcess } from 'validation-br';
import { onlyDigits } from './text.js';

/**
 * CNJ unique lawsuit number (CNJ Resolution 65/2008): NNNNNNN-DD.AAAA.J.TR.OOOO, 20 digits,
 * DD = ISO 7064 mod 97-10 over the other 18, J (justice segment) 1 to 9. Masked exactly so,
 * or 20 bare digits. validation-br computes the digits correctly (piecewise mod 97, so no
 * precision loss) and rejects J = 0; it also drops dots and hyphens anywhere, hence the shape
 * check here first.
 */
const CNJ_MASKED = /^\d{7}-\d{2}\.\d{4}\.\d\.\d{2}\.\d{4}$/;
const CNJ_BARE = /^\d{20}$/;

export function cnjProblem(value: string): string | undefined {
  if (!CNJ_MASKED.test(value) && !CNJ_BARE.test(value)) {
    return 'must be 20 digits, bare or masked as NNNNNNN-DD.AAAA.J.TR.OOOO';
  }
  const digits = onlyDigits(value);
  if (digits.charAt(13) === '0') return 'the justice segment (J) must be 1 to 9';
  return isJudicialProcess(digits) ? undefined : 'invalid check digits';
}

export function isValidCnj(value: string): boolean {
  return cnjProblem(value) === undefined;
}

export function normalizeCnj(value: string): string {
  return onlyDigits(value);
}
