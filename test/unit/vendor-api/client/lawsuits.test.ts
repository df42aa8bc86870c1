import { describe, expect, it } from 'vitest';
import { callFake, clientFor, json, parsed, startFakeVendor } from './fake-vendor.js';
import { lawsuitRecord, lawsuitsSample, summarySample } from './samples.js';

describe('lawsuitsByParty', () => {
  it('lawsuits search sends the search parameter bare and every filter value in double quotes', async () => {
    const { vendor } = await callFake({ body: lawsuitsSample }, 'lawsuits-by-party', {
      taxId: '529.982.247-25',
      grade: 1,
      partPole: 'PASSIVO',
      distributionDate: '2020-01-01',
      distributionDateFinal: '2020-12-31',
      segment: 'JUSTICA ESTADUAL',
    });
    const [request] = vendor.requests;
    expect(request?.method).toBe('GET');
    expect(request?.path).toBe('/lawsuits/v2');
    expect([...request!.query.entries()]).toEqual([
      ['taxId', '52998224725'],
      ['grade', '"1"'],
      ['partPole', '"PASSIVO"'],
      ['distributionDate', '"2020-01-01"'],
      ['distributionDateFinal', '"2020-12-31"'],
      ['segment', '"JUSTICA ESTADUAL"'],
    ]);
    // Blanks as %20, quotes as %22.
    expect(request?.rawQuery).toContain('segment=%22JUSTICA%20ESTADUAL%22');
  });

  it('lawsuits search repeats a multi-valued filter once per value, each quoted', async () => {
    const { vendor } = await callFake({ body: lawsuitsSample }, 'lawsuits-by-party', {
      partName: 'MARIA DA SILVA',
      courts: ['TJ-SP', 'TRT-2'],
      topics: 'DANO MORAL',
    });
    const [request] = vendor.requests;
    expect(request?.query.get('partName')).toBe('MARIA DA SILVA');
    expect(request?.query.getAll('courts')).toEqual(['"TJ-SP"', '"TRT-2"']);
    expect(request?.query.getAll('topics')).toEqual(['"DANO MORAL"']);
  });

  it('lawsuits search reports the answered version v1 although the path is v2, and keeps unknown members', async () => {
    const { result } = await callFake({ body: lawsuitsSample }, 'lawsuits-by-party', {
      exactPartName: 'MARIA',
    });
    expect(result).toMatchObject({ outcome: 'ok', vendorId: 'law-1', version: 'v1', timeSpent: 0.4 });
    expect(result.body?.data[0]?.statusPredictus?.statusProcesso).toBe('EM TRAMITACAO');
    expect(result.body?.data[0]?.auditOnly).toBe('kept');
  });
});

describe('lawsuitsSummary and lawsuitByNumber', () => {
  it('lawsuits summary sends taxId to /lawsuits-summary/v1 and parses the counts', async () => {
    const { vendor, result } = await callFake({ body: summarySample }, 'lawsuits-summary', {
      taxId: '11.222.333/0001-81',
    });
    expect(vendor.requests[0]?.path).toBe('/lawsuits-summary/v1');
    expect(vendor.requests[0]?.query.get('taxId')).toBe('11222333000181');
    expect(result.body?.data[0]?.totalByCourt).toEqual({ 'TJ-SP': 2, 'TRT-2': 1 });
  });

  it('lawsuit by number sends 20 digits and turns a single record into a one-item list', async () => {
    const vendor = await startFakeVendor((_, response) => {
      json(response, 200, { id: 'n-1', version: 'v2', data: lawsuitRecord });
    });
    const result = await clientFor(vendor).call(
      'lawsuit-by-number',
      parsed('lawsuit-by-number', { lawsuitNumber: '0011006-07.2016.8.20.0100' }),
    );
    expect(vendor.requests[0]?.path).toBe('/lawsuits-by-number/v2');
    expect(vendor.requests[0]?.query.get('lawsuitNumber')).toBe('00110060720168200100');
    expect(result.body?.data).toHaveLength(1);
    expect(result.body?.data[0]?.numeroProcessoUnico).toBe('00110060720168200100');
    expect(result.raw).toMatchObject({ data: { numeroProcessoUnico: '00110060720168200100' } });
  });

  it('lawsuit by number accepts data as a list too, with movement descriptions', async () => {
    const record = {
      ...lawsuitRecord,
      movimentos: [{ indice: 1, descricao: 'Juntada', nomeOriginal: ['JUNTADA'], anexos: [{ id: 1 }] }],
    };
    const vendor = await startFakeVendor((_, response) => {
      json(response, 200, { id: 'n-2', version: 'v1', data: [record] });
    });
    const result = await clientFor(vendor).call(
      'lawsuit-by-number',
      parsed('lawsuit-by-number', { lawsuitNumber: '00110060720168200100' }),
    );
    expect(result.body?.data[0]?.movimentos?.[0]).toMatchObject({
      descricao: 'Juntada',
      anexos: [{ id: 1 }],
    });
  });
});
