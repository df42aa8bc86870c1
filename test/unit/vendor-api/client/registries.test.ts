import { describe, expect, it } from 'vitest';
import { clientFor, json, parsed, replyJson, startFakeVendor, callFake } from './fake-vendor.js';
import {
  esocialTopLevelSample,
  esocialWrappedSample,
  partnersSample,
  stateRegistrationSample,
} from './samples.js';

describe('stateRegistration', () => {
  it.each([
    [{ cnpj: '11.222.333/0001-81' }, [['cnpj', '11222333000181']]],
    [
      { cpf: '529.982.247-25', uf: 'sp' },
      [
        ['cpf', '52998224725'],
        ['uf', 'SP'],
      ],
    ],
    [
      { ie: '110.042.490.114', uf: 'SP' },
      [
        ['ie', '110.042.490.114'],
        ['uf', 'SP'],
      ],
    ],
  ])('state registration sends the search mode %j', async (params, query) => {
    const vendor = await startFakeVendor(replyJson(200, stateRegistrationSample));
    const result = await clientFor(vendor).call('state-registration', parsed('state-registration', params));
    expect(vendor.requests[0]?.path).toBe('/receita-federal-and-sintegra');
    expect([...vendor.requests[0]!.query.entries()]).toEqual(query);
    expect(result.body?.data.sintegra?.inscricoesEstaduais?.[0]?.situacaoCadastralTratada).toBe(1);
  });
});

describe('companyPartners', () => {
  it('company partners sends taxId and parses the partner list', async () => {
    const { vendor, result } = await callFake({ body: partnersSample }, 'company-partners', {
      taxId: '11222333000181',
    });
    expect(vendor.requests[0]?.path).toBe('/receita-federal-cnpj-qsa');
    expect(vendor.requests[0]?.query.get('taxId')).toBe('11222333000181');
    expect(result).toMatchObject({ outcome: 'ok', vendorId: 'qsa-1', version: 'v2', timeSpent: 1 });
    expect(result.body?.data.receitaFederalQsa?.qsa?.[0]?.nome).toBe('MARIA');
  });
});

describe('esocialEligibility', () => {
  const params = {
    taxId: '529.982.247-25',
    birthdate: '01/02/1990',
    nis: '712.82677.38-0',
    name: 'MARIA DA SILVA',
  };

  it('eSocial sends the four parameters, dates as DD/MM/YYYY', async () => {
    const vendor = await startFakeVendor(replyJson(200, esocialWrappedSample));
    await clientFor(vendor).call('esocial-eligibility', parsed('esocial-eligibility', params));
    expect(vendor.requests[0]?.path).toBe('/esocial-qualificacao-cadastral');
    expect([...vendor.requests[0]!.query.entries()]).toEqual([
      ['taxId', '52998224725'],
      ['birthdate', '01/02/1990'],
      ['nis', '71282677380'],
      ['name', 'MARIA DA SILVA'],
    ]);
  });

  it('eSocial members at the top level or under data parse to the same shape, raw kept as sent', async () => {
    const bodies = [esocialTopLevelSample, esocialWrappedSample];
    const vendor = await startFakeVendor((_, response) => {
      json(response, 200, bodies.shift());
    });
    const client = clientFor(vendor);
    const topLevel = await client.call('esocial-eligibility', parsed('esocial-eligibility', params));
    const wrapped = await client.call('esocial-eligibility', parsed('esocial-eligibility', params));
    expect(topLevel.body?.data.eSocialQualificacaoCadastral).toEqual(
      wrapped.body?.data.eSocialQualificacaoCadastral,
    );
    expect(topLevel.body?.data.cpf).toBe('52998224725');
    expect(topLevel.body?.data.auditOnly).toBe('kept');
    expect(topLevel.raw).toEqual(esocialTopLevelSample);
    expect(wrapped).toMatchObject({ vendorId: 'es-1', timeSpent: 0.7 });
  });
});
