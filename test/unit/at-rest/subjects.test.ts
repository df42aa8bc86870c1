import { describe, expect, it } from 'vitest';
import {
  SubjectIndex,
  subjectOfKey,
  subjectsInText,
  subjectsOfParams,
  subjectsOfRequest,
} from '../../../src/at-rest/subjects.js';

describe('data subjects of a request', () => {
  it('finds the tax id or plate a request names, normalized', () => {
    expect(subjectsOfParams({ taxId: '529.982.247-25' })).toEqual([{ kind: 'tax-id', value: '52998224725' }]);
    expect(subjectsOfParams({ cpf: '52998224725', uf: 'SP' })).toEqual([
      { kind: 'tax-id', value: '52998224725' },
    ]);
    expect(subjectsOfParams({ licensePlate: 'abc-1d23' })).toEqual([{ kind: 'plate', value: 'ABC1D23' }]);
    expect(subjectsOfParams({ file: { url: 'https://x' } })).toEqual([]);
    expect(subjectsOfParams(null)).toEqual([]);
  });

  it('reads a message key as a tax id or a plate, and nothing else', () => {
    expect(subjectOfKey('529.982.247-25')).toEqual({ kind: 'tax-id', value: '52998224725' });
    expect(subjectOfKey('ABC1D23')).toEqual({ kind: 'plate', value: 'ABC1D23' });
    expect(subjectOfKey('0001234-56.2024.8.26.0100')).toBeUndefined();
    expect(subjectOfKey('order-17')).toBeUndefined();
  });

  it('finds the tax ids and plates written in a text, and nothing that only looks like one', () => {
    expect(subjectsInText('cliente 529.982.247-25, placa abc-1d23; empresa 11.222.333/0001-81')).toEqual([
      { kind: 'tax-id', value: '52998224725' },
      { kind: 'tax-id', value: '11222333000181' },
      { kind: 'plate', value: 'ABC1D23' },
    ]);
    expect(subjectsInText('AA.A12.345/6789-17')).toEqual([{ kind: 'tax-id', value: 'AAA12345678917' }]);
    // Wrong check digits, a number inside a longer one, a lawsuit number, a case reference.
    expect(subjectsInText('52998224726')).toEqual([]);
    expect(subjectsInText('152998224725')).toEqual([]);
    expect(subjectsInText('0001234-56.2024.8.26.0100 case A-17')).toEqual([]);
  });

  it('names everyone a request names: its params, its key and its metadata, once each', () => {
    expect(
      subjectsOfRequest({
        params: { taxId: '52998224725' },
        key: Buffer.from('ABC1D23'),
        metadata: { client: '529.982.247-25', other: '11222333000181', case: 'A-17' },
      }),
    ).toEqual([
      { kind: 'tax-id', value: '52998224725' },
      { kind: 'plate', value: 'ABC1D23' },
      { kind: 'tax-id', value: '11222333000181' },
    ]);
    expect(subjectsOfRequest({ params: { file: { url: 'https://x' } }, key: null })).toEqual([]);
  });

  it('hashes with its key: the same subject gives the same digest, another key another one', () => {
    const subject = { kind: 'tax-id' as const, value: '52998224725' };
    const a = new SubjectIndex('a'.repeat(32));
    expect(a.digest(subject)).toMatch(/^[0-9a-f]{64}$/);
    expect(a.digest(subject)).toBe(new SubjectIndex('a'.repeat(32)).digest(subject));
    expect(a.digest(subject)).not.toBe(new SubjectIndex('b'.repeat(32)).digest(subject));
    expect(a.digest(subject)).not.toBe(a.digest({ kind: 'plate', value: '52998224725' }));
  });
});
