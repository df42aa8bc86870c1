/**
 * Issue 50, findings 6 and 7: erase takes only an identifier a request could have named (shape
 * and check digits, as the service checks params), refusing anything else with exit code 2 and
 * one line that does not echo it; and two alphanumeric CNPJs that share their digits are two
 * subjects, not one digest.
 */
import { describe, expect, it } from 'vitest';
import { parseSubject } from '../../../src/audit/erase-ranges.js';
import { AuditError } from '../../../src/audit/errors.js';
import { SubjectIndex, subjectsOfParams } from '../../../src/at-rest/subjects.js';
import { cnpjProblem } from '../../../src/contract/documents/cnpj.js';
import { cpfCheckDigits } from '../../../src/contract/documents/cpf.js';

const validCpf = `402581897${cpfCheckDigits('402581897')}`;

function refusal(flags: { taxId?: string; plate?: string }): AuditError {
  try {
    parseSubject(flags);
  } catch (error) {
    if (error instanceof AuditError) return error;
    throw error;
  }
  throw new Error(`accepted ${JSON.stringify(flags)}`);
}

describe('erase refuses an identifier that is not valid', () => {
  const wrongCheckDigits = `${validCpf.slice(0, 9)}${validCpf.slice(9) === '00' ? '11' : '00'}`;
  it.each<[string, { taxId?: string; plate?: string }]>([
    ['a CPF with wrong check digits', { taxId: wrongCheckDigits }],
    ['all zeros', { taxId: '00000000000' }],
    ['digits inside other text', { taxId: `x${validCpf}y` }],
    ['digits followed by a command', { taxId: `${validCpf};DEL *` }],
    ['a CNPJ with wrong check digits', { taxId: '11222333000199' }],
    ['a plate of digits only', { plate: '1234567' }],
    ['a plate of the wrong shape', { plate: 'AB12345' }],
  ])('%s: exit code 2, one line, the value not echoed', (_what, flags) => {
    const error = refusal(flags);
    expect(error.exitCode).toBe(2);
    const given = flags.taxId ?? flags.plate ?? '';
    expect(error.message).not.toContain(given);
    expect(error.message).not.toContain('\n');
  });

  it('takes a valid CPF bare or masked, a CNPJ and a plate, normalized', () => {
    expect(parseSubject({ taxId: validCpf })).toEqual({ kind: 'tax-id', value: validCpf });
    const masked = `${validCpf.slice(0, 3)}.${validCpf.slice(3, 6)}.${validCpf.slice(6, 9)}-${validCpf.slice(9)}`;
    expect(parseSubject({ taxId: masked })).toEqual({ kind: 'tax-id', value: validCpf });
    expect(parseSubject({ taxId: '11.222.333/0001-81' })).toEqual({
      kind: 'tax-id',
      value: '11222333000181',
    });
    expect(parseSubject({ plate: 'abc-1d23' })).toEqual({ kind: 'plate', value: 'ABC1D23' });
  });
});

describe('alphanumeric CNPJs', () => {
  const first = 'AAA12345678917';
  const second = 'AAL12345678917';

  it('are both valid, and two subjects with two digests', () => {
    expect(cnpjProblem(first)).toBeUndefined();
    expect(cnpjProblem(second)).toBeUndefined();
    const a = parseSubject({ taxId: first });
    const b = parseSubject({ taxId: second });
    expect(a.value).toBe(first);
    expect(b.value).toBe(second);
    const index = new SubjectIndex(Buffer.alloc(32, 7));
    expect(index.digest(a)).not.toBe(index.digest(b));
    // The request side names them the same way.
    expect(subjectsOfParams({ cnpj: 'AA.A12.345/6789-17' })).toEqual([{ kind: 'tax-id', value: first }]);
  });

  it('are not found by their digits alone', () => {
    const index = new SubjectIndex(Buffer.alloc(32, 7));
    const digitsOnly = { kind: 'tax-id', value: '12345678917' } as const;
    expect(index.digest(digitsOnly)).not.toBe(index.digest(parseSubject({ taxId: first })));
  });
});
