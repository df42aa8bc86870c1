/**
 * Independent reference implementations of the check-digit rules, written from the public
 * descriptions (Receita Federal for CPF/CNPJ incl. technical note 49/2024, Caixa for NIS,
 * Denatran for RENAVAM, CNJ Resolution 65/2008 for lawsuit numbers), used to cross-check the
 * libraries on every mutation the property tests make.
 */
const mod11Digit = (sum: number): number => (sum % 11 < 2 ? 0 : 11 - (sum % 11));
const value = (char: string): number => char.charCodeAt(0) - 48;
const weighted = (chars: string, weights: readonly number[]): number =>
  weights.reduce((sum, weight, i) => sum + weight * value(chars.charAt(i)), 0);
const repeated = (text: string): boolean => text === text.charAt(0).repeat(text.length);

export function cpfOracle(digits: string): boolean {
  if (!/^\d{11}$/.test(digits) || repeated(digits)) return false;
  const first = mod11Digit(weighted(digits, [10, 9, 8, 7, 6, 5, 4, 3, 2]));
  const second = mod11Digit(weighted(digits, [11, 10, 9, 8, 7, 6, 5, 4, 3, 2]));
  return digits.slice(9) === `${first}${second}`;
}

export function cnpjOracle(bare: string): boolean {
  const upper = bare.toUpperCase();
  if (!/^[0-9A-Z]{12}\d{2}$/.test(upper) || repeated(upper)) return false;
  const first = mod11Digit(weighted(upper, [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]));
  const second = mod11Digit(
    weighted(upper.slice(0, 12) + String(first), [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]),
  );
  return upper.slice(12) === `${first}${second}`;
}

export function nisOracle(digits: string): boolean {
  if (!/^\d{11}$/.test(digits) || repeated(digits)) return false;
  return Number(digits.charAt(10)) === mod11Digit(weighted(digits, [3, 2, 9, 8, 7, 6, 5, 4, 3, 2]));
}

export function renavamOracle(digits: string): boolean {
  if (!/^\d{11}$/.test(digits) || repeated(digits)) return false;
  // Denatran: the first 10 digits reversed, weights 2..9 then 2, 3; (sum * 10) mod 11, 10 → 0.
  const reversed = digits.slice(0, 10).split('').reverse().join('');
  const rest = (weighted(reversed, [2, 3, 4, 5, 6, 7, 8, 9, 2, 3]) * 10) % 11;
  return Number(digits.charAt(10)) === (rest === 10 ? 0 : rest);
}

/** ISO 7064 mod 97-10: NNNNNNN AAAA J TR OOOO DD, read as one number, is 1 modulo 97. */
export function cnjOracle(digits: string): boolean {
  if (!/^\d{20}$/.test(digits) || digits.charAt(13) === '0') return false;
  const rearranged = `${digits.slice(0, 7)}${digits.slice(9)}${digits.slice(7, 9)}`;
  return BigInt(rearranged) % 97n === 1n;
}

/** Every string that differs from `text` in exactly one position, using `alphabet`. */
export function* singleSubstitutions(
  text: string,
  alphabet: string,
): Generator<{ index: number; mutated: string }> {
  for (let index = 0; index < text.length; index++) {
    for (const char of alphabet.split('')) {
      if (char === text.charAt(index)) continue;
      yield { index, mutated: `${text.slice(0, index)}${char}${text.slice(index + 1)}` };
    }
  }
}

export const DIGITS = '0123456789';
export const ALPHANUMERIC = `${DIGITS}ABCDEFGHIJKLMNOPQRSTUVWXYZ`;
