import { describe, expect, it } from 'vitest';
import { parseParams, paramsSchemas } from '../../../src/contract/params.js';
import { OPERATIONS, type Operation } from '../../../src/contract/operations.js';

const CPF = '529.982.247-25';
const CNPJ = '11.222.333/0001-81';
const JPEG = '/9j/4AAQSkZJRgABAQ==';

function messageOf(operation: Operation, value: unknown): string {
  const result = parseParams(operation, value);
  if (result.ok) throw new Error(`expected ${operation} params to be rejected`);
  return result.message;
}

function paramsOf(operation: Operation, value: unknown): unknown {
  const result = parseParams(operation, value);
  if (!result.ok) throw new Error(`expected ${operation} params to pass: ${result.message}`);
  return result.params;
}

describe('params schemas', () => {
  it('has one schema per operation of the contract', () => {
    expect(Object.keys(paramsSchemas).sort()).toEqual([...OPERATIONS].sort());
  });

  it('rejects params that are not an object', () => {
    expect(messageOf('vehicle', 'ABC1234')).toBe('params: must be an object');
    expect(messageOf('vehicle', null)).toBe('params: must be an object');
  });

  it('rejects unknown members and suggests the near spelling', () => {
    expect(messageOf('lawsuits-summary', { taxID: CPF })).toBe(
      'taxId: is required; unknown member "taxID" (did you mean "taxId"?); allowed: taxId',
    );
  });

  it('never echoes a tax id in a message', () => {
    expect(messageOf('lawsuits-summary', { taxId: '529.982.247-26' })).toBe('taxId: invalid check digits');
  });
});

describe('classify-document', () => {
  it('accepts a base64 file with a name and type, or a url file', () => {
    expect(
      paramsOf('classify-document', { file: { base64: JPEG, filename: 'a.jpg', contentType: 'image/jpeg' } }),
    ).toEqual({
      file: { base64: JPEG, filename: 'a.jpg', contentType: 'image/jpeg' },
    });
    expect(paramsOf('classify-document', { file: { url: 'https://files.example/doc.jpg' } })).toEqual({
      file: { url: 'https://files.example/doc.jpg' },
    });
  });

  it.each([
    [
      { file: { base64: JPEG, url: 'https://x.example/a' } },
      'file: exactly one of base64, url is required; got 2: base64, url',
    ],
    [{ file: {} }, 'file: exactly one of base64, url is required; got none'],
    [{ file: { base64: '' } }, 'file.base64: must be non-empty standard base64'],
    [{ file: { base64: 'abc' } }, 'file.base64: must be non-empty standard base64'],
    [{ file: { base64: 'data:image/jpeg;base64,/9j/' } }, 'file.base64: must be non-empty standard base64'],
    [{ file: { url: 'ftp://x.example/a' } }, 'file.url: must be an absolute http or https URL'],
    [
      { file: { url: 'https://x.example/a', filename: 'a.jpg' } },
      'file: filename and contentType go with base64 only',
    ],
    [
      { file: { base64: JPEG, contentType: 'jpeg' } },
      'file.contentType: must be a media type such as image/jpeg',
    ],
    [{ file: { base64: JPEG, name: 'a' } }, 'file: unknown member "name"'],
    [{}, 'file: is required'],
  ])('rejects %j', (value, message) => {
    expect(messageOf('classify-document', value)).toContain(message);
  });
});

describe('face-document-lookup', () => {
  it('accepts a CPF (normalised), a JPEG selfie and document types', () => {
    expect(
      paramsOf('face-document-lookup', {
        cpf: CPF,
        selfie: { base64: JPEG },
        documentTypes: ['federal-id', 'drivers-license'],
      }),
    ).toEqual({
      cpf: '52998224725',
      selfie: { base64: JPEG },
      documentTypes: ['federal-id', 'drivers-license'],
    });
    expect(paramsOf('face-document-lookup', { cpf: CPF, selfie: { url: 'http://127.0.0.1/s.jpg' } })).toEqual(
      {
        cpf: '52998224725',
        selfie: { url: 'http://127.0.0.1/s.jpg' },
      },
    );
  });

  it.each([
    [{ cpf: '529.982.247-26', selfie: { base64: JPEG } }, 'cpf: invalid check digits'],
    [{ cpf: CNPJ, selfie: { base64: JPEG } }, 'cpf: must be 11 digits, bare or masked as 000.000.000-00'],
    [{ cpf: CPF, selfie: { base64: 'iVBORw0KGgo=' } }, 'selfie.base64: must be a JPEG image (JPEG/JPG only)'],
    [{ cpf: CPF, selfie: {} }, 'selfie: exactly one of base64, url is required; got none'],
    [
      { cpf: CPF, selfie: { base64: JPEG }, documentTypes: ['rg'] },
      'documentTypes[0]: must be one of federal-id, passport, driver_license, drivers-license',
    ],
    [{ cpf: CPF, selfie: { base64: JPEG }, documentTypes: [] }, 'documentTypes: must list at least one type'],
    [{ cpf: CPF, selfie: { base64: JPEG }, documentTypes: 'passport' }, 'documentTypes: must be a list'],
  ])('rejects %j', (value, message) => {
    expect(messageOf('face-document-lookup', value)).toContain(message);
  });
});

describe('lawsuits-by-party search parameters', () => {
  it('normalises a masked CPF or CNPJ to the unmasked form the vendor matches', () => {
    expect(paramsOf('lawsuits-by-party', { taxId: CPF })).toEqual({ taxId: '52998224725' });
    expect(paramsOf('lawsuits-by-party', { taxId: CNPJ })).toEqual({
      taxId: '11222333000181',
    });
    expect(paramsOf('lawsuits-by-party', { exactPartName: '  MARIA DA SILVA ' })).toEqual({
      exactPartName: 'MARIA DA SILVA',
    });
  });

  it('refuses an alphanumeric CNPJ, which the party search cannot match (digits only)', () => {
    expect(paramsOf('lawsuits-summary', { taxId: '12.abc.345/01de-35' })).toEqual({
      taxId: '12ABC34501DE35',
    });
    expect(messageOf('lawsuits-by-party', { taxId: '12.abc.345/01de-35' })).toContain(
      'taxId: the vendor searches parties by tax ids in digits only',
    );
  });

  it('requires exactly one search parameter and names the ones given', () => {
    expect(messageOf('lawsuits-by-party', { taxId: CPF, partName: 'MARIA' })).toBe(
      'exactly one of taxId, taxIdFull, partName, name, exactPartName, exactName is required; got 2: taxId, partName',
    );
    expect(messageOf('lawsuits-by-party', { courts: 'TJ-SP' })).toBe(
      'exactly one of taxId, taxIdFull, partName, name, exactPartName, exactName is required; got none',
    );
  });

  it.each([
    ['taxIdFull', '52998224725', 'taxId'],
    ['name', 'MARIA', 'partName'],
    ['exactName', 'MARIA', 'exactPartName'],
  ])('refuses %s, announced but not yet available, and points to %s', (key, value, instead) => {
    expect(messageOf('lawsuits-by-party', { [key]: value })).toBe(
      `${key}: the vendor has announced this search but not made it available yet (vendor-api.md, GET /lawsuits/v2); search with ${instead} instead`,
    );
  });

  it.each([
    [{ taxId: '1234' }, 'taxId: must be a CPF (11 digits) or a CNPJ (14 characters), bare or masked'],
    [{ taxId: '11.222.333/0001-82' }, 'taxId: invalid check digits'],
    [{ partName: '   ' }, 'partName: must not be empty'],
    [{ partName: 7 }, 'partName: must be a string'],
  ])('rejects %j', (value, message) => {
    expect(messageOf('lawsuits-by-party', value)).toBe(message);
  });
});

describe('lawsuit lookups by tax id and number', () => {
  it('lawsuits-summary takes a CPF or a CNPJ', () => {
    expect(paramsOf('lawsuits-summary', { taxId: CNPJ })).toEqual({ taxId: '11222333000181' });
    expect(messageOf('lawsuits-summary', {})).toBe('taxId: is required');
  });

  it('lawsuit-by-number takes a valid CNJ number, masked or not, and sends digits', () => {
    expect(paramsOf('lawsuit-by-number', { lawsuitNumber: '0011006-07.2016.8.20.0100' })).toEqual({
      lawsuitNumber: '00110060720168200100',
    });
    expect(messageOf('lawsuit-by-number', { lawsuitNumber: '0011006-08.2016.8.20.0100' })).toBe(
      'lawsuitNumber: invalid check digits',
    );
  });
});

describe('vehicle and vehicle-async', () => {
  it('accepts exactly one of plate, RENAVAM or chassis, normalised to letters and digits', () => {
    expect(paramsOf('vehicle', { licensePlate: 'abc-1d23' })).toEqual({ licensePlate: 'ABC1D23' });
    expect(paramsOf('vehicle', { registryId: '00639884962' })).toEqual({ registryId: '00639884962' });
    expect(paramsOf('vehicle', { chassis: '9bwzzz377vt004251' })).toEqual({ chassis: '9BWZZZ377VT004251' });
    expect(paramsOf('vehicle-async', { licensePlate: 'ABC-1234' })).toEqual({ licensePlate: 'ABC1234' });
  });

  it.each([
    [{}, 'exactly one of licensePlate, registryId, chassis is required; got none'],
    [
      { licensePlate: 'ABC1234', chassis: '9BWZZZ377VT004251' },
      'exactly one of licensePlate, registryId, chassis is required; got 2: licensePlate, chassis',
    ],
    [
      { licensePlate: 'AB12345' },
      'licensePlate: must be a plate in the old (AAA9999) or Mercosur (AAA9A99) format, hyphen optional',
    ],
    [
      { registryId: '639884962' },
      'registryId: must be 11 digits (write older 9-digit numbers with their two leading zeros)',
    ],
    [{ chassis: '9BWZZZ377VT00425I' }, 'chassis: must be 17 letters and digits (a VIN), without I, O or Q'],
  ])('vehicle rejects %j', (value, message) => {
    expect(messageOf('vehicle', value)).toBe(message);
  });
});

describe('state-registration', () => {
  it.each([
    [{ cnpj: CNPJ }, { cnpj: '11222333000181' }],
    [
      { cpf: CPF, uf: 'sp' },
      { cpf: '52998224725', uf: 'SP' },
    ],
    [
      { ie: '110.042.490.114', uf: 'SP' },
      { ie: '110.042.490.114', uf: 'SP' },
    ],
  ])('accepts the search mode %j', (value, expected) => {
    expect(paramsOf('state-registration', value)).toEqual(expected);
  });

  it.each([
    [{}, 'exactly one search mode is required: cnpj, or cpf + uf, or ie + uf; got none'],
    [
      { cnpj: CNPJ, uf: 'SP' },
      'exactly one search mode is required: cnpj, or cpf + uf, or ie + uf; got cnpj + uf',
    ],
    [
      { cnpj: CNPJ, cpf: CPF, uf: 'SP' },
      'exactly one search mode is required: cnpj, or cpf + uf, or ie + uf; got cnpj + cpf + uf',
    ],
    [{ cpf: CPF }, 'uf: is required together with cpf'],
    [{ ie: '110042490114' }, 'uf: is required together with ie'],
    [{ cpf: CPF, uf: 'XX' }, 'uf: must be one of the 27 state codes (AC, AL, ..., TO)'],
    [{ ie: 'ISENTO!', uf: 'SP' }, 'ie: must be 2 to 20 letters, digits, dots, slashes or hyphens'],
  ])('rejects %j', (value, message) => {
    expect(messageOf('state-registration', value)).toBe(message);
  });
});

describe('company-partners and esocial-eligibility', () => {
  it('company-partners takes a CNPJ only', () => {
    expect(paramsOf('company-partners', { taxId: '12.ABC.345/01DE-35' })).toEqual({
      taxId: '12ABC34501DE35',
    });
  });

  it('esocial-eligibility takes CPF, DD/MM/YYYY birth date, NIS and name', () => {
    expect(
      paramsOf('esocial-eligibility', {
        taxId: CPF,
        birthdate: '01/02/1990',
        nis: '712.82677.38-0',
        name: ' MARIA ',
      }),
    ).toEqual({
      taxId: '52998224725',
      birthdate: '01/02/1990',
      nis: '71282677380',
      name: 'MARIA',
    });
  });

  it.each([
    [{ birthdate: '1990-02-01' }, 'birthdate: must be a real date written DD/MM/YYYY'],
    [{ birthdate: '30/02/1990' }, 'birthdate: must be a real date written DD/MM/YYYY'],
    [{ birthdate: '01/01/2999' }, 'birthdate: must not be in the future'],
    [{ nis: '500.12973.80-1' }, 'nis: invalid check digit'],
    [{ name: '' }, 'name: must not be empty'],
    [{ taxId: CNPJ }, 'taxId: must be 11 digits, bare or masked as 000.000.000-00'],
  ])('rejects %j', (change, message) => {
    const valid = { taxId: CPF, birthdate: '01/02/1990', nis: '71282677380', name: 'MARIA' };
    expect(messageOf('esocial-eligibility', { ...valid, ...change })).toBe(message);
  });
});
