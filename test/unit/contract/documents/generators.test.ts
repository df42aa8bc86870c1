import { describe, expect, it } from 'vitest';
import {
  isValidChassis,
  isValidCnj,
  isValidCnpj,
  isValidCpf,
  isValidNis,
  isValidPlate,
  isValidRenavam,
} from '../../../../src/contract/documents/index.js';
import {
  generateChassis,
  generateCnj,
  generateCnpj,
  generateCpf,
  generateNis,
  generatePlate,
  generateRenavam,
} from '../../../helpers/documents.js';

const generators: [string, (seed?: number) => string, (value: string) => boolean][] = [
  ['generateCpf', generateCpf, isValidCpf],
  ['generateCnpj', generateCnpj, isValidCnpj],
  ['generateCnpj alphanumeric', (seed) => generateCnpj(seed, { alphanumeric: true }), isValidCnpj],
  ['generateCnj', generateCnj, isValidCnj],
  ['generateRenavam', generateRenavam, isValidRenavam],
  ['generateNis', generateNis, isValidNis],
  ['generatePlate', generatePlate, isValidPlate],
  ['generateChassis', generateChassis, isValidChassis],
];

describe('document generators', () => {
  it.each(generators)('%s is deterministic for a seed and varies across seeds', (_, generate, isValid) => {
    const values = Array.from({ length: 50 }, (__, seed) => generate(seed));
    expect(Array.from({ length: 50 }, (__, seed) => generate(seed))).toEqual(values);
    expect(new Set(values).size).toBeGreaterThan(45);
    expect(values.every(isValid)).toBe(true);
  });

  it.each(generators)('%s without a seed still yields valid values', (_, generate, isValid) => {
    for (let i = 0; i < 20; i++) expect(isValid(generate())).toBe(true);
  });

  it('pins a few seeded values so sandbox data stays reproducible across releases', () => {
    expect(generateCpf(1)).toBe('60599267461');
    expect(generateCnpj(2)).toBe('73258643000103');
    expect(generateCnpj(2, { alphanumeric: true, masked: true })).toBe('QB.AVV.MHC/S4S7-06');
    expect(generateCnj(3, { masked: true })).toBe('7040744-81.2004.3.15.1074');
  });
});
