/**
 * Published and hand-made values of every document the contract checks, accepted or rejected
 * with the reason a dead letter gives: one table, one pair of tests per document.
 */
import { describe, expect, it } from 'vitest';
import {
  cnjProblem,
  cnpjProblem,
  cpfProblem,
  isValidBrDate,
  isValidChassis,
  isValidCnj,
  isValidCnpj,
  isValidCpf,
  isValidIsoDate,
  isValidNis,
  isValidPlate,
  isValidRenavam,
  nisProblem,
  renavamProblem,
} from '../../../../src/contract/documents/index.js';

interface DocumentCases {
  name: string;
  isValid: (value: string) => boolean;
  /** The reason given for a rejected value; absent: only validity is checked. */
  problem?: (value: string) => string | undefined;
  problemContains?: boolean;
  valid: string[];
  invalid: (string | [string, string])[];
}

const DOCUMENTS: DocumentCases[] = [
  {
    name: 'CPF',
    isValid: isValidCpf,
    problem: cpfProblem,
    valid: [
      '529.982.247-25',
      '52998224725',
      '111.444.777-35',
      '000.000.001-91',
      '00000000191',
      '906.259.666-51',
      '01234567890',
      // The contract's own sample tax id: valid check digits (cpf-cnpj-validator blacklists it).
      '12345678909',
    ],
    invalid: [
      ['529.982.247-26', 'invalid check digits'],
      ['111.111.111-11', 'a single repeated digit is not an issued CPF'],
      ['00000000000', 'a single repeated digit is not an issued CPF'],
      ['0000000191', 'must be 11 digits, bare or masked as 000.000.000-00'],
      ['5299822472-5', 'must be 11 digits, bare or masked as 000.000.000-00'],
      ['529 982 247 25', 'must be 11 digits, bare or masked as 000.000.000-00'],
      ['abc52998224725', 'must be 11 digits, bare or masked as 000.000.000-00'],
      ['529.982.24725', 'must be 11 digits, bare or masked as 000.000.000-00'],
    ],
  },
  {
    name: 'CNPJ',
    isValid: isValidCnpj,
    problem: cnpjProblem,
    // The length problem goes on to say what the characters may be.
    problemContains: true,
    valid: [
      '11.222.333/0001-81',
      '11222333000181',
      '00.000.000/0001-91',
      '00360305000104',
      '73.797.980/0001-79',
      '55585709000198',
      // Alphanumeric CNPJ, example of RFB technical note 49/2024.
      '12.ABC.345/01DE-35',
      '12ABC34501DE35',
      '12abc34501de35',
    ],
    invalid: [
      ['99362238000180', 'invalid check digits'],
      ['11.222.333/0001-82', 'invalid check digits'],
      ['12ABC34501DE36', 'invalid check digits'],
      ['00000000000000', 'a single repeated digit is not an issued CNPJ'],
      ['0000000000191', 'must be 14 characters'],
      ['11222333/000181', 'must be 14 characters'],
      ['12ABC34501DEA5', 'must be 14 characters'],
      ['12.ABC.345/01DE-3', 'must be 14 characters'],
    ],
  },
  {
    name: 'CNJ lawsuit number',
    isValid: isValidCnj,
    problem: cnjProblem,
    valid: ['0011006-07.2016.8.20.0100', '00110060720168200100'],
    invalid: [
      ['00110060720168200101', 'invalid check digits'],
      ['0011006-08.2016.8.20.0100', 'invalid check digits'],
      ['0011006-07.2016.0.20.0100', 'the justice segment (J) must be 1 to 9'],
      // validation-br's readme calls this 17-digit form valid; we never pad.
      ['20802520125150049', 'must be 20 digits, bare or masked as NNNNNNN-DD.AAAA.J.TR.OOOO'],
      ['0011006.07-2016.8.20.0100', 'must be 20 digits, bare or masked as NNNNNNN-DD.AAAA.J.TR.OOOO'],
      ['0011006-07.2016.8.20.010', 'must be 20 digits, bare or masked as NNNNNNN-DD.AAAA.J.TR.OOOO'],
    ],
  },
  {
    name: 'RENAVAM',
    isValid: isValidRenavam,
    problem: renavamProblem,
    valid: ['14283256656', '95059845976', '00639884962'],
    invalid: [
      ['67747331626', 'invalid check digit'],
      ['00000000000', 'a single repeated digit is not an issued RENAVAM'],
      ['639884962', 'must be 11 digits (write older 9-digit numbers with their two leading zeros)'],
      ['0063988496-2', 'must be 11 digits (write older 9-digit numbers with their two leading zeros)'],
      ['0063988496A', 'must be 11 digits (write older 9-digit numbers with their two leading zeros)'],
    ],
  },
  {
    name: 'NIS',
    isValid: isValidNis,
    problem: nisProblem,
    valid: ['71282677380', '237.95126.95-5', '712.82677.38-0'],
    invalid: [
      ['500.12973.80-1', 'invalid check digit'],
      ['7128267738', 'must be 11 digits, bare or masked as 000.00000.00-0'],
      ['7128267738-0', 'must be 11 digits, bare or masked as 000.00000.00-0'],
      ['11111111111', 'a single repeated digit is not an issued NIS'],
    ],
  },
  {
    name: 'vehicle plate',
    isValid: isValidPlate,
    valid: ['ABC1234', 'abc1234', 'ABC-1234', 'ABC1D23', 'abc1d23', 'BRA2E19', 'bra-2e19'],
    invalid: [
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
    ],
  },
  {
    name: 'chassis (VIN)',
    isValid: isValidChassis,
    valid: ['9BWZZZ377VT004251', '1HGCM82633A004352', '9bwzzz377vt004251'],
    invalid: [
      '9BWZZZ377VT00425',
      '9BWZZZ377VT0042511',
      '9BWZZZ377VT00425I',
      '9BWZZZ377VT00425O',
      'QBWZZZ377VT004251',
      '9BW-ZZ377VT004251',
    ],
  },
  {
    name: 'ISO date',
    isValid: isValidIsoDate,
    valid: ['2024-02-29', '2000-02-29', '1999-12-31', '0001-01-01'],
    invalid: [
      '2023-02-29',
      '1900-02-29',
      '2024-13-01',
      '2024-04-31',
      '2024-00-10',
      '0000-01-01',
      '2024-1-01',
      '2024-01-01T00:00:00',
      '01/01/2024',
    ],
  },
  {
    name: 'DD/MM/YYYY date',
    isValid: isValidBrDate,
    valid: ['29/02/2024', '31/12/1999', '01/01/1950'],
    invalid: ['29/02/2023', '31/04/2024', '1/1/2024', '2024-01-01', '00/01/2024'],
  },
];

describe.each(DOCUMENTS)('$name', ({ isValid, problem, problemContains, valid, invalid }) => {
  it.each(valid)('accepts %s', (value) => {
    expect(isValid(value)).toBe(true);
  });

  it.each(invalid.map((item) => (typeof item === 'string' ? [item, undefined] : item)))(
    'rejects %j: %s',
    (value, reason) => {
      expect(isValid(value)).toBe(false);
      if (reason === undefined || problem === undefined) return;
      if (problemContains) expect(problem(value)).toContain(reason);
      else expect(problem(value)).toBe(reason);
    },
  );
});
