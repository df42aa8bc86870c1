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
  it.each(['ABC1234', 'abc1234', 'ABC-1234', 'ABC1D23', 'abc1d23', 'BRA2E19', 'bra-2e19'])(
    'accepts %s',
    (value) => {
      expect(isValidPlate(value)).toBe(true);
    },
  );

  it.each([
    'ABCD123',
    'AB1234',
    'ABC12345',
    'ABC1-234',
    ' ABC1234',
    'ABC 1234',
    'ÁBC1234',
    'ABC1D2E',
    '1BC1234',
    '',
  ])('rejects %j', (value) => {
    expect(isValidPlate(value)).toBe(false);
  });

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
  it.each(['9BWZZZ377VT004251', '1HGCM82633A004352', '9bwzzz377vt004251'])('accepts %s', (value) => {
    expect(isValidChassis(value)).toBe(true);
  });

  it.each([
    '9BWZZZ377VT00425',
    '9BWZZZ377VT0042511',
    '9BWZZZ377VT00425I',
    '9BWZZZ377VT00425O',
    'QBWZZZ377VT004251',
    '9BW-ZZ377VT004251',
  ])('rejects %s', (value) => {
    expect(isValidChassis(value)).toBe(false);
  });

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
  it.each(['2024-02-29', '2000-02-29', '1999-12-31', '0001-01-01'])('accepts the ISO date %s', (value) => {
    expect(isValidIsoDate(value)).toBe(true);
  });

  it.each([
    '2023-02-29',
    '1900-02-29',
    '2024-13-01',
    '2024-04-31',
    '2024-00-10',
    '0000-01-01',
    '2024-1-01',
    '2024-01-01T00:00:00',
    '01/01/2024',
  ])('rejects the ISO date %s', (value) => {
    expect(isValidIsoDate(value)).toBe(false);
  });

  it.each(['29/02/2024', '31/12/1999', '01/01/1950'])('accepts the DD/MM/YYYY date %s', (value) => {
    expect(isValidBrDate(value)).toBe(true);
  });

  it.each(['29/02/2023', '31/04/2024', '1/1/2024', '2024-01-01', '00/01/2024'])(
    'rejects the DD/MM/YYYY date %s',
    (value) => {
      expect(isValidBrDate(value)).toBe(false);
    },
  );

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
