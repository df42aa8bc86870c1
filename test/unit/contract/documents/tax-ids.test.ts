import { cnpj as cnpjLibrary, cpf as cpfLibrary } from 'cpf-cnpj-validator';
import fc from 'fast-check';
import { isCNPJ, isCPF } from 'validation-br';
import { describe, expect, it } from 'vitest';
import {
  cnpjCheckDigits,
  cpfCheckDigits,
  isValidCnpj,
  isValidCpf,
  isValidTaxId,
  normalizeCnpj,
  normalizeCpf,
  normalizeTaxId,
  taxIdKind,
} from '../../../../src/contract/documents/index.js';
import { formatCnpj, formatCpf, generateCnpj, generateCpf } from '../../../helpers/documents.js';
import { ALPHANUMERIC, DIGITS, cnpjOracle, cpfOracle, singleSubstitutions } from './oracles.js';

const seed = fc.integer({ min: 0, max: 2 ** 31 - 1 });

describe('CPF', () => {
  it('keeps leading zeros and never pads: 000.000.001-91 normalises to 00000000191', () => {
    expect(normalizeCpf('000.000.001-91')).toBe('00000000191');
    expect(isValidCpf('191')).toBe(false);
  });

  it('accepts generated CPFs, masked or not, and masked normalises to unmasked', () => {
    fc.assert(
      fc.property(seed, (s) => {
        const cpf = generateCpf(s);
        expect(isValidCpf(cpf)).toBe(true);
        expect(isValidCpf(formatCpf(cpf))).toBe(true);
        expect(normalizeCpf(generateCpf(s, { masked: true }))).toBe(cpf);
      }),
    );
  });

  it('rejects every change of a check digit and agrees with the reference rule on every other change', () => {
    fc.assert(
      fc.property(seed, (s) => {
        const cpf = generateCpf(s);
        for (const { index, mutated } of singleSubstitutions(cpf, DIGITS)) {
          if (index >= 9) expect(isValidCpf(mutated)).toBe(false);
          expect(isValidCpf(mutated)).toBe(cpfOracle(mutated));
        }
      }),
      { numRuns: 200 },
    );
  });

  it('keeps leading zeros of generated CPFs valid as written', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 8 }), seed, (zeros, s) => {
        const body = `${'0'.repeat(zeros)}${generateCpf(s).slice(zeros, 9)}`;
        fc.pre(!/^0+$/.test(body));
        const cpf = `${body}${cpfCheckDigits(body)}`;
        expect(isValidCpf(cpf)).toBe(true);
        expect(normalizeCpf(formatCpf(cpf))).toBe(cpf);
        expect(isValidCpf(cpf.replace(/^0+/, ''))).toBe(false);
      }),
    );
  });

  // mod 11 maps remainders 0 and 1 to the same digit 0, and the first digit weighs 11 ≡ 0 in
  // the second sum, so a few single changes keep both check digits (about 0.2% of them).
  it('passes a first-digit change that the mod 11 rule itself cannot see, as the reference does', () => {
    expect(isValidCpf('73258643709')).toBe(true);
    expect(isValidCpf('83258643709')).toBe(true);
    expect(cpfOracle('83258643709')).toBe(true);
  });
});

describe('CNPJ', () => {
  it('normalises masks and letter case, keeping leading zeros', () => {
    expect(normalizeCnpj('00.000.000/0001-91')).toBe('00000000000191');
    expect(normalizeCnpj('12.abc.345/01de-35')).toBe('12ABC34501DE35');
    expect(formatCnpj('12ABC34501DE35')).toBe('12.ABC.345/01DE-35');
  });

  it.each([
    ['numeric', false, DIGITS],
    ['alphanumeric', true, ALPHANUMERIC],
  ])(
    'accepts generated %s CNPJs and agrees with the reference rule on every one-character change',
    (_, alphanumeric, alphabet) => {
      fc.assert(
        fc.property(seed, (s) => {
          const cnpj = generateCnpj(s, { alphanumeric });
          expect(isValidCnpj(cnpj)).toBe(true);
          expect(normalizeCnpj(generateCnpj(s, { alphanumeric, masked: true }))).toBe(cnpj);
          if (alphanumeric) expect(cnpj.slice(0, 12)).toMatch(/[A-Z]/);
          for (const { index, mutated } of singleSubstitutions(cnpj, alphabet)) {
            if (index >= 12) expect(isValidCnpj(mutated)).toBe(false);
            expect(isValidCnpj(mutated)).toBe(cnpjOracle(mutated));
          }
        }),
        { numRuns: 100 },
      );
    },
  );

  // Characters count as (char code - 48), so two characters whose values differ by a
  // multiple of 11 (0 and F, A and L) weigh the same modulo 11: a known limit of the
  // alphanumeric CNPJ, reproduced by every correct implementation.
  it('cannot tell 0 from F in the alphanumeric CNPJ, by design of the check digits', () => {
    const body = '0BCDEFGH0001';
    const cnpj = `${body}${cnpjCheckDigits(body)}`;
    expect(isValidCnpj(cnpj)).toBe(true);
    expect(isValidCnpj(`F${cnpj.slice(1)}`)).toBe(true);
    expect(cnpjOracle(`F${cnpj.slice(1)}`)).toBe(true);
  });
});

describe('tax id (CPF or CNPJ)', () => {
  it('tells CPF from CNPJ by shape and normalises each', () => {
    expect(taxIdKind('529.982.247-25')).toBe('cpf');
    expect(taxIdKind('12.ABC.345/01DE-35')).toBe('cnpj');
    expect(taxIdKind('1234')).toBeUndefined();
    expect(normalizeTaxId('529.982.247-25')).toBe('52998224725');
    expect(normalizeTaxId('12.abc.345/01de-35')).toBe('12ABC34501DE35');
    expect(isValidTaxId('11.222.333/0001-81')).toBe(true);
    expect(isValidTaxId('1234')).toBe(false);
  });
});

// Why the libraries are not used as-is (see src/contract/documents/cpf.ts and cnpj.ts).
describe('library evaluation against known values', () => {
  it('cpf-cnpj-validator blacklists 12345678909 although its check digits are valid', () => {
    expect(cpfLibrary.isValid('12345678909')).toBe(false);
    expect(cpfOracle('12345678909')).toBe(true);
  });

  it('cpf-cnpj-validator in loose mode accepts junk around the digits', () => {
    expect(cpfLibrary.isValid('abc52998224725')).toBe(true);
    expect(isValidCpf('abc52998224725')).toBe(false);
  });

  it('validation-br accepts a misplaced mask', () => {
    expect(isCPF('5299822472-5')).toBe(true);
    expect(isCNPJ('11222333/000181')).toBe(true);
  });

  it('both libraries agree with the reference on the alphanumeric CNPJ check digits', () => {
    fc.assert(
      fc.property(seed, (s) => {
        const cnpj = generateCnpj(s, { alphanumeric: true });
        expect(cnpjLibrary.isValid(cnpj, true)).toBe(true);
        expect(isCNPJ(cnpj)).toBe(true);
      }),
    );
  });
});
