import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { maskKey, maskValue } from '../../../src/audit/mask.js';

describe('maskValue', () => {
  it('shows only the last two digits of a tax id, wherever it sits', () => {
    const masked = maskValue({
      requestId: 'r-1',
      params: { taxId: '52998224725', nested: [{ cpf: '529.982.247-25' }] },
    });
    expect(masked).toEqual({
      requestId: 'r-1',
      params: { taxId: '•••••••••25', nested: [{ cpf: '•••••••••25' }] },
    });
  });

  it('shows an image as its size and sha256, never its bytes', () => {
    const bytes = Buffer.from('not really a jpeg, but bytes all the same');
    const sha = createHash('sha256').update(bytes).digest('hex');
    const masked = JSON.stringify(
      maskValue({ params: { selfie: bytes.toString('base64'), file: { base64: bytes.toString('base64') } } }),
    );
    expect(masked).not.toContain(bytes.toString('base64'));
    expect(masked).toContain(`[image: ${bytes.length} bytes, sha256 ${sha}]`);
  });

  it('hides names and plates, and tax ids inside free text', () => {
    expect(maskValue({ name: 'Maria Silva', licensePlate: 'ABC1D23' })).toEqual({
      name: '[masked]',
      licensePlate: '[masked]',
    });
    expect(maskValue('lookup of 11222333000181 failed', 'message')).toBe('lookup of ••••••••••••81 failed');
    expect(maskValue('no answer for 529.982.247-25 or 11.222.333/0001-81', 'message')).toBe(
      'no answer for •••••••••25 or ••••••••••••81',
    );
  });

  it("hides the vendor answers' personal fields, as the logger redacts them", () => {
    const masked = maskValue({
      response: {
        data: [
          {
            partes: [{ nome: 'Maria Silva', partName: 'MARIA SILVA', polo: 'ATIVO' }],
            movimentos: [{ indice: 1, descricao: 'Citada MARIA SILVA no endereço' }],
            razaoSocial: 'Silva Comercio Ltda',
            birthdate: '1980-01-02',
            mothersName: 'Ana Silva',
          },
        ],
      },
    });
    expect(masked).toEqual({
      response: {
        data: [
          {
            partes: [{ nome: '[masked]', partName: '[masked]', polo: '[masked]' }],
            movimentos: [{ indice: 1, descricao: '[masked]' }],
            razaoSocial: '[masked]',
            birthdate: '[masked]',
            mothersName: '[masked]',
          },
        ],
      },
    });
  });

  it('masks a personal field whatever its type, and everything under a personal container', () => {
    const masked = maskValue({
      params: { cpf: 52998224725, name: { full: 'Maria Silva', parts: ['Maria', 'Silva'] } },
      response: {
        data: {
          numero: 1234,
          partes: [{ tipo: 'AUTOR', cpf: '52998224725', oab: { uf: 'SP', numero: 98765 } }],
          reference: 11222333000181,
          // A CPF starting with 0 sent as a number: 10 digits left.
          other: 1234567890,
          count: 12345678,
        },
      },
    });
    expect(masked).toEqual({
      params: { cpf: '•••••••••25', name: { full: '[masked]', parts: ['[masked]', '[masked]'] } },
      response: {
        data: {
          numero: '[masked]',
          partes: [{ tipo: '[masked]', cpf: '•••••••••25', oab: { uf: '[masked]', numero: '[masked]' } }],
          reference: '••••••••••••81',
          other: '••••••••90',
          count: 12345678,
        },
      },
    });
  });

  it('leaves other values alone', () => {
    expect(maskValue({ operation: 'vehicle', attempts: 3, ok: true, none: null })).toEqual({
      operation: 'vehicle',
      attempts: 3,
      ok: true,
      none: null,
    });
  });

  it('shows only the last two characters of any message key', () => {
    expect(maskKey(null)).toBeNull();
    expect(maskKey('52998224725')).toBe('•••••••••25');
    expect(maskKey('529.982.247-25')).toBe('••••••••••••25');
    expect(maskKey('ABC1D23')).toBe('•••••23');
    expect(maskKey('ab')).toBe('•••');
  });
});
