import { describe, expect, it } from 'vitest';
import { parseParams } from '../../../../src/contract/params.js';
import { COURTS } from '../../../../src/contract/vocabulary.js';

function messageOf(value: unknown): string {
  const result = parseParams('lawsuits-by-party', value);
  if (result.ok) throw new Error('expected the params to be rejected');
  return result.message;
}

function paramsOf(value: unknown): unknown {
  const result = parseParams('lawsuits-by-party', value);
  if (!result.ok) throw new Error(`expected the params to pass: ${result.message}`);
  return result.params;
}

describe('lawsuits-by-party filters', () => {
  const search = { taxId: '52998224725' };

  it('accepts every filter and turns single values of list filters into lists', () => {
    const params = paramsOf({
      ...search,
      grade: 2,
      courts: 'TJ-SP',
      partPole: 'PASSIVO',
      lawsuitStatuses: ['EM TRAMITACAO', 'SUSPENSO'],
      lawsuitFields: 'DIREITO DO CONSUMIDOR',
      topics: ['ATRASO DE VOO', 'DANO MORAL'],
      lawsuitTypes: 'PROCEDIMENTO COMUM CIVEL',
      distributionDate: '2020-01-01',
      distributionDateFinal: '2020-12-31',
      segment: 'JUSTICA ESTADUAL',
    });
    expect(params).toMatchObject({
      courts: ['TJ-SP'],
      lawsuitFields: ['DIREITO DO CONSUMIDOR'],
      lawsuitTypes: ['PROCEDIMENTO COMUM CIVEL'],
    });
  });

  it.each([
    [{ grade: 0 }, 'grade: must be from 1 to 4'],
    [{ grade: 5 }, 'grade: must be from 1 to 4'],
    [{ grade: 1.5 }, 'grade: must be a whole number from 1 to 4'],
    [{ grade: '2' }, 'grade: must be a number from 1 to 4'],
    [
      { courts: ['TJ-SP', 'TJSP'] },
      'courts[1]: must be one of the courts of the vendor list (e.g. STF, STJ, STM); got a text of 4 characters',
    ],
    [{ courts: 'TJ-DF' }, 'courts: must be one of the courts of the vendor list'],
    [{ courts: [] }, 'courts: must list at least one value'],
    [
      { partPole: 'ativo' },
      'partPole: must be one of the poles (PASSIVO, ATIVO); got a text of 5 characters',
    ],
    [{ lawsuitStatuses: 'EM TRAMITAÇÃO' }, 'lawsuitStatuses: must be one of the lawsuit statuses'],
    [{ lawsuitFields: ['DIREITO PENAL', 'PENAL'] }, 'lawsuitFields[1]: must be one of the branches of law'],
    [{ segment: 'JUSTICA MILITAR' }, 'segment: must be one of the justice segments'],
    [{ topics: 'Dano moral' }, 'topics: must be upper-case letters and digits separated by single blanks'],
    [{ topics: ['DANO MORAL', 'INDENIZAÇÃO'] }, 'topics[1]: must be upper-case letters and digits'],
    [{ lawsuitTypes: 'PROCEDIMENTO  COMUM' }, 'lawsuitTypes: must be upper-case letters and digits'],
    [{ distributionDate: '2020-02-30' }, 'distributionDate: must be a real date written YYYY-MM-DD'],
    [
      { distributionDateEqual: '01/02/2020' },
      'distributionDateEqual: must be a real date written YYYY-MM-DD',
    ],
    [
      { distributionDateFinal: '2020-12-31' },
      'distributionDateFinal: is used only together with distributionDate',
    ],
    [
      { distributionDate: '2020-01-01', distributionDateEqual: '2020-05-05' },
      'distributionDateEqual: cannot be combined with distributionDate or distributionDateFinal',
    ],
    [
      { distributionDate: '2020-02-01', distributionDateFinal: '2020-01-01' },
      'distributionDateFinal: must not be before distributionDate',
    ],
  ])('rejects %j', (filters, message) => {
    expect(messageOf({ ...search, ...filters })).toContain(message);
  });

  it('builds the court list from the spec lists: 121 courts', () => {
    expect(COURTS).toHaveLength(6 + 6 + 27 + 27 + 28 + 24 + 3);
    expect(COURTS).toEqual(
      expect.arrayContaining([
        'STF',
        'CJF',
        'TRF-6',
        'JF-DF',
        'TJ-DFT',
        'TRE-DF',
        'TRE-DFT',
        'TRT-1',
        'TRT-24',
        'TJM-SP',
      ]),
    );
    expect(COURTS).not.toContain('TJ-DF');
    expect(COURTS).not.toContain('JF-DFT');
    expect(COURTS).not.toContain('TRT-25');
  });
});

describe('a reason never quotes the value it refuses', () => {
  // Issue 50, finding 8: a court list holding a person's name and CPF came back in the reason,
  // and the read-only console showed it.
  it('names the field and the rule, not a name or a tax id put in the wrong field', () => {
    const refused = parseParams('lawsuits-by-party', {
      taxId: '52998224725',
      courts: ['MARIA APARECIDA SOUZA 98765432100'],
    });
    expect(refused.ok).toBe(false);
    const message = refused.ok ? '' : refused.message;
    expect(message).toMatch(/^courts\[0\]: must be one of the courts of the vendor list/);
    expect(message).not.toMatch(/MARIA|SOUZA|98765432100/);
  });
});
