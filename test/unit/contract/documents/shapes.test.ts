import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  UFS,
  brDateToIso,
  isValidBrDate,
  isValidChassis,
  isValidIsoDate,
  isValidPlate,
  isValidUf,
  normalizePlate,
  normalizeUf,
} from '../../../../src/contract/documents/index.js';
import { generateChassis, generatePlate, plateFormat } from '../../../helpers/documents.js';

const seed = fc.integer({ min: 0, max: 2 ** 31 - 1 });

describe('vehicle plate', () => {
  it('normalises to upper case without hyphen and tells the format', () => {
    expect(normalizePlate('abc-1d23')).toBe('ABC1D23');
    expect(plateFormat('abc-1234')).toBe('old');
    expect(plateFormat('ABC1D23')).toBe('mercosur');
    expect(plateFormat('nope')).toBeUndefined();
  });

  it('generates valid plates of the asked format, the same for the same seed', () => {
    fc.assert(
      fc.property(seed, fc.constantFrom('old' as const, 'mercosur' as const), (s, format) => {
        const plate = generatePlate(s, { format });
        expect(isValidPlate(plate)).toBe(true);
        expect(plateFormat(plate)).toBe(format);
        expect(generatePlate(s, { format })).toBe(plate);
        expect(isValidPlate(plate.toLowerCase())).toBe(true);
        expect(isValidPlate(`${plate.slice(0, 3)}-${plate.slice(3)}`)).toBe(true);
      }),
    );
  });
});

describe('chassis (VIN)', () => {
  it('generates valid VINs deterministically', () => {
    fc.assert(
      fc.property(seed, (s) => {
        expect(isValidChassis(generateChassis(s))).toBe(true);
        expect(generateChassis(s)).toBe(generateChassis(s));
      }),
    );
  });
});

describe('UF', () => {
  it('knows the 27 federative units, case-insensitively', () => {
    expect(UFS).toHaveLength(27);
    expect(new Set(UFS).size).toBe(27);
    for (const uf of UFS) {
      expect(isValidUf(uf)).toBe(true);
      expect(isValidUf(uf.toLowerCase())).toBe(true);
    }
    expect(normalizeUf('sp')).toBe('SP');
  });

  it.each(['XX', 'DFT', 'S', '', 'S P'])('rejects %j', (value) => {
    expect(isValidUf(value)).toBe(false);
  });
});

describe('dates', () => {
  it('agrees with the calendar for every day and converts DD/MM/YYYY to ISO', () => {
    fc.assert(
      fc.property(
        fc.date({
          min: new Date('1900-01-01T00:00:00Z'),
          max: new Date('2100-12-31T00:00:00Z'),
          noInvalidDate: true,
        }),
        (date) => {
          const iso = date.toISOString().slice(0, 10);
          const [year, month, day] = iso.split('-');
          const br = `${day ?? ''}/${month ?? ''}/${year ?? ''}`;
          expect(isValidIsoDate(iso)).toBe(true);
          expect(isValidBrDate(br)).toBe(true);
          expect(brDateToIso(br)).toBe(iso);
        },
      ),
    );
  });
});
