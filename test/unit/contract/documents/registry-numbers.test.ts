import fc from 'fast-check';
import { isJudicialProcess } from 'validation-br';
import { describe, expect, it } from 'vitest';
import {
  cnjProblem,
  isValidCnj,
  isValidNis,
  isValidRenavam,
  nisProblem,
  normalizeCnj,
  normalizeNis,
  renavamProblem,
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
  it.each(['0011006-07.2016.8.20.0100', '00110060720168200100'])(
    'accepts the published valid number %s',
    (value) => {
      expect(isValidCnj(value)).toBe(true);
    },
  );

  it.each([
    ['00110060720168200101', 'invalid check digits'],
    ['0011006-08.2016.8.20.0100', 'invalid check digits'],
    ['0011006-07.2016.0.20.0100', 'the justice segment (J) must be 1 to 9'],
    // validation-br's readme calls this 17-digit form valid; we never pad.
    ['20802520125150049', 'must be 20 digits, bare or masked as NNNNNNN-DD.AAAA.J.TR.OOOO'],
    ['0011006.07-2016.8.20.0100', 'must be 20 digits, bare or masked as NNNNNNN-DD.AAAA.J.TR.OOOO'],
    ['0011006-07.2016.8.20.010', 'must be 20 digits, bare or masked as NNNNNNN-DD.AAAA.J.TR.OOOO'],
  ])('rejects %s: %s', (value, problem) => {
    expect(cnjProblem(value)).toBe(problem);
  });

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
  it.each(['14283256656', '95059845976', '00639884962'])(
    'accepts the published valid RENAVAM %s',
    (value) => {
      expect(isValidRenavam(value)).toBe(true);
    },
  );

  it.each([
    ['67747331626', 'invalid check digit'],
    ['00000000000', 'a single repeated digit is not an issued RENAVAM'],
    ['639884962', 'must be 11 digits (write older 9-digit numbers with their two leading zeros)'],
    ['0063988496-2', 'must be 11 digits (write older 9-digit numbers with their two leading zeros)'],
    ['0063988496A', 'must be 11 digits (write older 9-digit numbers with their two leading zeros)'],
  ])('rejects %s: %s', (value, problem) => {
    expect(renavamProblem(value)).toBe(problem);
  });

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
  it.each(['71282677380', '237.95126.95-5', '712.82677.38-0'])(
    'accepts the published valid NIS %s',
    (value) => {
      expect(isValidNis(value)).toBe(true);
    },
  );

  it.each([
    ['500.12973.80-1', 'invalid check digit'],
    ['7128267738', 'must be 11 digits, bare or masked as 000.00000.00-0'],
    ['7128267738-0', 'must be 11 digits, bare or masked as 000.00000.00-0'],
    ['11111111111', 'a single repeated digit is not an issued NIS'],
  ])('rejects %s: %s', (value, problem) => {
    expect(nisProblem(value)).toBe(problem);
  });

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
