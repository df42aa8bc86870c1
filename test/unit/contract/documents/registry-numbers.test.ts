import fc from 'fast-check';
import { isJudicialProcess } from 'validation-br';
import { describe, expect, it } from 'vitest';
import {
  isValidCnj,
  isValidNis,
  isValidRenavam,
  normalizeCnj,
  normalizeNis,
} from '../../../../src/contract/documents/index.js';
import {
  formatCnj,
  formatNis,
  generateCnj,
  generateNis,
  generateRenavam,
} from '../../../helpers/documents.js';
import { DIGITS, cnjOracle, nisOracle, renavamOracle, singleSubstitutions } from './oracles.js';

const seed = fc.integer({ min: 0, max: 2 ** 31 - 1 });

describe('CNJ lawsuit number', () => {
  it('validation-br drops separators wherever they are, hence our shape check', () => {
    expect(isJudicialProcess('0011006.07-2016.8.20.0100')).toBe(true);
  });

  it('accepts generated numbers masked and bare, and rejects every single-digit change (mod 97 sees them all)', () => {
    fc.assert(
      fc.property(seed, (s) => {
        const digits = generateCnj(s);
        expect(cnjOracle(digits)).toBe(true);
        expect(isValidCnj(digits)).toBe(true);
        expect(isValidCnj(generateCnj(s, { masked: true }))).toBe(true);
        expect(normalizeCnj(formatCnj(digits))).toBe(digits);
        for (const { mutated } of singleSubstitutions(digits, DIGITS)) {
          expect(isValidCnj(mutated)).toBe(false);
          expect(isValidCnj(formatCnj(mutated))).toBe(false);
        }
      }),
      { numRuns: 100 },
    );
  });

  it('keeps leading zeros of the sequence number', () => {
    const digits = generateCnj(7).replace(/^\d{3}/, '000');
    const withoutCheck = `${digits.slice(0, 7)}${digits.slice(9)}`;
    const check = String(98 - Number((BigInt(withoutCheck) * 100n) % 97n)).padStart(2, '0');
    const fixed = `${digits.slice(0, 7)}${check}${digits.slice(9)}`;
    expect(isValidCnj(fixed)).toBe(true);
    expect(normalizeCnj(formatCnj(fixed))).toBe(fixed);
    expect(isValidCnj(fixed.replace(/^0+/, ''))).toBe(false);
  });
});

describe('RENAVAM', () => {
  it('accepts generated numbers and agrees with the reference rule on every single-digit change', () => {
    fc.assert(
      fc.property(seed, (s) => {
        const renavam = generateRenavam(s);
        expect(isValidRenavam(renavam)).toBe(true);
        for (const { index, mutated } of singleSubstitutions(renavam, DIGITS)) {
          if (index === 10) expect(isValidRenavam(mutated)).toBe(false);
          expect(isValidRenavam(mutated)).toBe(renavamOracle(mutated));
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe('NIS / PIS', () => {
  it('accepts generated numbers, masked equals unmasked, and agrees with the reference on every change', () => {
    fc.assert(
      fc.property(seed, (s) => {
        const nis = generateNis(s);
        expect(isValidNis(nis)).toBe(true);
        expect(isValidNis(formatNis(nis))).toBe(true);
        expect(normalizeNis(generateNis(s, { masked: true }))).toBe(nis);
        for (const { index, mutated } of singleSubstitutions(nis, DIGITS)) {
          if (index === 10) expect(isValidNis(mutated)).toBe(false);
          expect(isValidNis(mutated)).toBe(nisOracle(mutated));
        }
      }),
      { numRuns: 200 },
    );
  });
});
