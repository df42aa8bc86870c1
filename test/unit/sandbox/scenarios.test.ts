import { cnpj, cpf } from 'cpf-cnpj-validator';
import { isJudicialProcess, isPIS, isRenavam } from 'validation-br';
import { describe, expect, it } from 'vitest';
import { CATALOG } from '../../../src/sandbox/data/catalog.js';
import { generateLawsuitNumber } from '../../../src/sandbox/data/lawsuit-record.js';
import { splitFilterValues } from '../../../src/sandbox/data/lawsuit-search.js';
import {
  generateCnpj,
  generateCpf,
  generateNis,
  generateRenavam,
  normaliseCnpj,
  parseCnjNumber,
  preMercosurPlate,
} from '../../../src/sandbox/identifiers.js';
import { Prng } from '../../../src/sandbox/random.js';
import {
  asyncFinalStatus,
  cnpjFor,
  cpfFor,
  esocialShape,
  faceOutcome,
  hasNoLawsuits,
  isEmptyClassification,
  isRegistryEmpty,
  isVehicleNotFound,
  lawsuitNumberFor,
  nisFor,
  plateFor,
} from '../../../src/sandbox/scenarios.js';

describe('generated identifiers', () => {
  it('carry valid check digits (CPF, CNPJ, CNJ, RENAVAM, NIS)', () => {
    const prng = Prng.from('check-digits');
    for (let i = 0; i < 300; i++) {
      expect(cpf.isValid(generateCpf(prng))).toBe(true);
      expect(cnpj.isValid(generateCnpj(prng))).toBe(true);
      const number = generateLawsuitNumber(prng);
      expect(isJudicialProcess(number), number).toBe(true);
      expect(parseCnjNumber(number)).toBeDefined();
      expect(isRenavam(generateRenavam(prng))).toBe(true);
      expect(isPIS(generateNis(prng))).toBe(true);
    }
  });

  it('accepts the alphanumeric company tax id', () => {
    expect(normaliseCnpj('12.ABC.345/01DE-35')).toBe('12ABC34501DE35');
    expect(normaliseCnpj('12ABC34501DE36')).toBeUndefined();
  });

  it('turns a Mercosur plate back into its earlier form', () => {
    expect(preMercosurPlate('ABC1C34')).toBe('ABC1234');
    expect(preMercosurPlate('ABC1234')).toBeNull();
  });

  it('is reproducible from the same seed', () => {
    expect(generateCpf(Prng.from('x'))).toBe(generateCpf(Prng.from('x')));
    expect(generateCpf(Prng.from('x'))).not.toBe(generateCpf(Prng.from('y')));
  });
});

describe('scenario pickers', () => {
  it('give valid tax ids that trigger their rule', () => {
    expect(faceOutcome(cpfFor('face-match'))).toBe('match');
    expect(faceOutcome(cpfFor('face-no-match'))).toBe('no-match');
    expect(faceOutcome(cpfFor('face-no-document'))).toBe('no-document');
    expect(hasNoLawsuits(cpfFor('no-lawsuits'))).toBe(true);
    expect(hasNoLawsuits(cpfFor('happy'))).toBe(false);
    expect(esocialShape(cpfFor('esocial-top-level'))).toBe('top-level');
    expect(esocialShape(cpfFor('esocial-under-data'))).toBe('under-data');
    expect(isRegistryEmpty(cnpjFor('registry-empty'))).toBe(true);
    for (let i = 0; i < 20; i++) {
      expect(cpf.isValid(cpfFor('happy', i))).toBe(true);
      expect(cnpj.isValid(cnpjFor('happy', i))).toBe(true);
      expect(isJudicialProcess(lawsuitNumberFor('found', i))).toBe(true);
      expect(isPIS(nisFor('valid', i))).toBe(true);
      expect(isPIS(nisFor('invalid', i))).toBe(false);
    }
    expect(new Set(Array.from({ length: 20 }, (_, i) => cpfFor('happy', i))).size).toBe(20);
  });

  it('give plates that trigger their rule', () => {
    for (let i = 0; i < 50; i++) {
      expect(plateFor('found', i)).toMatch(/^[A-Z]{3}\d[A-J]\d{2}$/);
      expect(isVehicleNotFound('licensePlate', plateFor('found', i))).toBe(false);
      expect(asyncFinalStatus(plateFor('async-sucessful', i))).toBe('sucessful');
      expect(isVehicleNotFound('licensePlate', plateFor('not-found', i))).toBe(true);
      expect(asyncFinalStatus(plateFor('async-error', i))).toBe('error');
    }
    expect(isVehicleNotFound('registryId', '99912345678')).toBe(true);
    expect(isEmptyClassification(15)).toBe(true);
    expect(isEmptyClassification(16)).toBe(false);
  });
});

describe('catalog and filters', () => {
  it('holds the spec catalog with one-letter sides expanded', () => {
    expect(CATALOG.length).toBeGreaterThan(100);
    expect(CATALOG.filter((e) => e.type === 'ProofOfResidence')).toHaveLength(16);
    expect(CATALOG.find((e) => e.country === 'BRA' && e.subtype === 'Navy_Paper')?.sides).toEqual([
      'OnlyBack',
      'FrontAndBack',
    ]);
    expect(CATALOG.find((e) => e.country === 'ARG' && e.type === 'DriversLicense')?.subtype).toBeUndefined();
  });

  it('splits filter values given quoted, bare, repeated or comma-separated, without accents', () => {
    expect(splitFilterValues('"TJ-SP","TRT-2"')).toEqual(['TJ-SP', 'TRT-2']);
    expect(splitFilterValues(['"TJ-SP"', 'trt-2'])).toEqual(['TJ-SP', 'TRT-2']);
    expect(splitFilterValues('"Justiça Estadual"')).toEqual(['JUSTICA ESTADUAL']);
    expect(splitFilterValues(' "A" , \'B\' ')).toEqual(['A', 'B']);
  });
});
