import { isJudicialProcess } from 'validation-br';
import { cnpj as cnpjLib, cpf as cpfLib } from 'cpf-cnpj-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../src/sandbox/index.js';
import { COURTS } from '../../../src/contract/vocabulary.js';
import {
  cnpjFor,
  cpfFor,
  LAWSUIT_NOT_FOUND_PREFIX,
  lawsuitNumberFor,
} from '../../../src/sandbox/scenarios.js';
import { call, startSandbox, withoutVolatile, type Envelope } from './helpers.js';

interface Party {
  nome: string;
  polo?: string;
  cpf?: string;
  cnpj?: string;
  advogados: { cpf: string; oab: { uf: string; numero: string } }[];
}
interface Lawsuit {
  numeroProcessoUnico: string;
  grauProcesso: number;
  tribunal: string;
  segmento?: string;
  dataDistribuicao: string;
  partes: Party[];
  movimentos: { indice: number; nomeOriginal: string[]; descricao?: string; anexos?: unknown[] }[];
  classeProcessual: { nome: string };
  statusPredictus: { statusProcesso: string; ramoDireito: string };
}
interface Summary {
  total: number;
  totalByCourt: Record<string, number>;
  totalByJustice: Record<string, number>;
  totalByYear: Record<string, number>;
}

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(async () => {
  await sandbox.close();
});

/** A happy tax id with enough lawsuits to exercise the filters. */
function richTaxId(): string {
  return cpfFor('happy', 1);
}

describe('GET /lawsuits/v2', () => {
  it('answers the party search with version v1 and lawsuits naming the tax id', async () => {
    const taxId = richTaxId();
    const { status, body } = await call<Envelope<Lawsuit[]>>(sandbox, `/lawsuits/v2?taxId=${taxId}`);
    expect(status).toBe(200);
    expect(body.version).toBe('v1');
    expect(body.data.length).toBeGreaterThan(0);
    for (const lawsuit of body.data) {
      expect(isJudicialProcess(lawsuit.numeroProcessoUnico)).toBe(true);
      expect(COURTS).toContain(lawsuit.tribunal);
      expect(lawsuit.partes.some((p) => p.cpf === taxId)).toBe(true);
      for (const party of lawsuit.partes) {
        if (party.cpf !== undefined) expect(cpfLib.isValid(party.cpf)).toBe(true);
        if (party.cnpj !== undefined) expect(cnpjLib.isValid(party.cnpj)).toBe(true);
      }
      expect(lawsuit.dataDistribuicao).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
      for (const movement of lawsuit.movimentos) {
        expect(movement.descricao).toBeUndefined();
        expect(movement.anexos).toBeUndefined();
      }
    }
  });

  it('finds company tax ids and gives zero lawsuits by rule', async () => {
    const company = await call<Envelope<Lawsuit[]>>(sandbox, `/lawsuits/v2?taxId=${cnpjFor('happy')}`);
    expect(company.body.data.some((l) => l.partes.some((p) => p.cnpj === cnpjFor('happy')))).toBe(true);
    const none = await call<Envelope<Lawsuit[]>>(sandbox, `/lawsuits/v2?taxId=${cpfFor('no-lawsuits')}`);
    expect(none.status).toBe(200);
    expect(none.body.data).toEqual([]);
  });

  it('searches by part name (contains) and exact part name', async () => {
    const contains = await call<Envelope<Lawsuit[]>>(sandbox, '/lawsuits/v2?partName=Jos%C3%A9%20Souza');
    expect(contains.status).toBe(200);
    expect(contains.body.data.every((l) => l.partes.some((p) => p.nome.includes('JOSE SOUZA')))).toBe(true);
    const exact = await call<Envelope<Lawsuit[]>>(sandbox, '/lawsuits/v2?exactPartName=JOSE%20SOUZA');
    expect(exact.body.data.every((l) => l.partes.some((p) => p.nome === 'JOSE SOUZA'))).toBe(true);
    // Contains includes exact: every lawsuit the exact search finds, the contains search finds.
    const numbers = (found: Envelope<Lawsuit[]>) => found.data.map((l) => l.numeroProcessoUnico);
    const containsExact = await call<Envelope<Lawsuit[]>>(sandbox, '/lawsuits/v2?partName=JOSE%20SOUZA');
    expect(exact.body.data.length).toBeGreaterThan(0);
    expect(numbers(containsExact.body)).toEqual(expect.arrayContaining(numbers(exact.body)));
    // A two-letter name is a name (the spec sets no minimum, nor does the service).
    expect((await call(sandbox, '/lawsuits/v2?partName=LI')).status).toBe(200);
    expect((await call(sandbox, '/lawsuits/v2?partName=%22%22')).status).toBe(400);
  });

  it('applies filters given quoted, bare, repeated or comma-separated', async () => {
    const taxId = richTaxId();
    const all = (await call<Envelope<Lawsuit[]>>(sandbox, `/lawsuits/v2?taxId=${taxId}`)).body.data;
    const [first] = all;
    if (first === undefined) throw new Error('expected lawsuits');
    const quoted = await call<Envelope<Lawsuit[]>>(
      sandbox,
      `/lawsuits/v2?taxId=${taxId}&courts=${encodeURIComponent(`"${first.tribunal}"`)}`,
    );
    expect(quoted.body.data.length).toBeGreaterThan(0);
    expect(quoted.body.data.every((l) => l.tribunal === first.tribunal)).toBe(true);
    const other = first.tribunal === 'TRT-1' ? 'TRT-2' : 'TRT-1';
    const list = await call<Envelope<Lawsuit[]>>(
      sandbox,
      `/lawsuits/v2?taxId=${taxId}&courts=${first.tribunal},${other}`,
    );
    const repeated = await call<Envelope<Lawsuit[]>>(
      sandbox,
      `/lawsuits/v2?taxId=${taxId}&courts=${first.tribunal}&courts=${other}`,
    );
    expect(list.body.data).toEqual(repeated.body.data);
    const grade = await call<Envelope<Lawsuit[]>>(
      sandbox,
      `/lawsuits/v2?taxId=${taxId}&grade="${String(first.grauProcesso)}"`,
    );
    expect(grade.body.data.every((l) => l.grauProcesso === first.grauProcesso)).toBe(true);
    const day = first.dataDistribuicao.slice(0, 10);
    const equal = await call<Envelope<Lawsuit[]>>(
      sandbox,
      `/lawsuits/v2?taxId=${taxId}&distributionDateEqual="${day}"`,
    );
    expect(equal.body.data.map((l) => l.numeroProcessoUnico)).toContain(first.numeroProcessoUnico);
    const status = encodeURIComponent(`"${first.statusPredictus.statusProcesso}"`);
    const byStatus = await call<Envelope<Lawsuit[]>>(
      sandbox,
      `/lawsuits/v2?taxId=${taxId}&lawsuitStatuses=${status}`,
    );
    expect(
      byStatus.body.data.every(
        (l) => l.statusPredictus.statusProcesso === first.statusPredictus.statusProcesso,
      ),
    ).toBe(true);
    const future = await call<Envelope<Lawsuit[]>>(
      sandbox,
      `/lawsuits/v2?taxId=${taxId}&distributionDate=2030-01-01`,
    );
    expect(future.body.data).toEqual([]);
  });

  it('matches a class written with punctuation when the filter gives it without (the spec writes values so)', async () => {
    let found: { taxId: string; lawsuit: Lawsuit } | undefined;
    for (let i = 0; i < 40 && found === undefined; i += 1) {
      const taxId = cpfFor('happy', i);
      const { data } = (await call<Envelope<Lawsuit[]>>(sandbox, `/lawsuits/v2?taxId=${taxId}`)).body;
      const lawsuit = data.find((l) => /[^A-Z0-9 ]/.test(l.classeProcessual.nome));
      if (lawsuit !== undefined) found = { taxId, lawsuit };
    }
    if (found === undefined) throw new Error('no lawsuit whose class has punctuation among 40 tax ids');
    const written = found.lawsuit.classeProcessual.nome
      .replace(/[^A-Z0-9 ]/g, ' ')
      .replace(/\s+/g, ' ')
      .trim();
    const filtered = await call<Envelope<Lawsuit[]>>(
      sandbox,
      `/lawsuits/v2?taxId=${found.taxId}&lawsuitTypes=${encodeURIComponent(`"${written}"`)}`,
    );
    expect(filtered.status).toBe(200);
    const { lawsuit } = found;
    expect(filtered.body.data.map((l) => l.numeroProcessoUnico)).toContain(lawsuit.numeroProcessoUnico);
    expect(filtered.body.data.every((l) => l.classeProcessual.nome === lawsuit.classeProcessual.nome)).toBe(
      true,
    );
  });

  it('answers 400 unless exactly one available search parameter is given', async () => {
    const taxId = richTaxId();
    for (const query of [
      '',
      `?taxId=${taxId}&partName=JOSE`,
      `?taxIdFull=${taxId}`,
      '?name=JOSE',
      '?exactName=JOSE',
    ]) {
      const { status, body } = await call(sandbox, `/lawsuits/v2${query}`);
      expect(status, query).toBe(400);
      expect(body.error.error).toBe('Bad Request');
    }
    const announced = await call(sandbox, `/lawsuits/v2?taxIdFull=${taxId}`);
    expect(announced.body.error.message).toContain('not yet available');
  });

  it('answers 400 for a masked tax id, an unknown filter value and a lone distributionDateFinal', async () => {
    const taxId = richTaxId();
    const masked = `${taxId.slice(0, 3)}.${taxId.slice(3, 6)}.${taxId.slice(6, 9)}-${taxId.slice(9)}`;
    expect((await call(sandbox, `/lawsuits/v2?taxId=${masked}`)).status).toBe(400);
    expect((await call(sandbox, `/lawsuits/v2?taxId=${taxId}&courts=TJ-XX`)).status).toBe(400);
    expect((await call(sandbox, `/lawsuits/v2?taxId=${taxId}&distributionDateFinal=2020-01-01`)).status).toBe(
      400,
    );
  });

  it('is deterministic apart from id and timeSpent', async () => {
    const a = await call<Envelope<Lawsuit[]>>(sandbox, `/lawsuits/v2?taxId=${richTaxId()}`);
    const b = await call<Envelope<Lawsuit[]>>(sandbox, `/lawsuits/v2?taxId=${richTaxId()}`);
    expect(withoutVolatile(a.body)).toEqual(withoutVolatile(b.body));
  });
});

describe('GET /lawsuits-summary/v1', () => {
  it('counts the same lawsuits the party search finds', async () => {
    const taxId = richTaxId();
    const list = (await call<Envelope<Lawsuit[]>>(sandbox, `/lawsuits/v2?taxId=${taxId}`)).body.data;
    const { status, body } = await call<Envelope<Summary[]>>(sandbox, `/lawsuits-summary/v1?taxId=${taxId}`);
    expect(status).toBe(200);
    expect(body.version).toBe('v1');
    expect(body.data).toHaveLength(1);
    const [summary] = body.data;
    expect(summary?.total).toBe(list.length);
    const sum = (record: Record<string, number> | undefined) =>
      Object.values(record ?? {}).reduce((a, b) => a + b, 0);
    expect(sum(summary?.totalByCourt)).toBe(list.length);
    expect(sum(summary?.totalByJustice)).toBe(list.length);
    expect(Object.keys(summary?.totalByYear ?? {}).every((year) => /^\d{4}$/.test(year))).toBe(true);
  });

  it('answers zero by rule and 400 without taxId', async () => {
    const none = await call<Envelope<Summary[]>>(
      sandbox,
      `/lawsuits-summary/v1?taxId=${cpfFor('no-lawsuits')}`,
    );
    expect(none.body.data[0]).toEqual({ total: 0, totalByCourt: {}, totalByJustice: {}, totalByYear: {} });
    expect((await call(sandbox, '/lawsuits-summary/v1')).status).toBe(400);
  });

  it("answers the contract's sample tax id, 12345678909 (valid check digits)", async () => {
    const { status, body } = await call<Envelope<Summary[]>>(
      sandbox,
      '/lawsuits-summary/v1?taxId=12345678909',
    );
    expect(status).toBe(200);
    expect(body.data).toHaveLength(1);
  });
});

describe('GET /lawsuits-by-number/v2', () => {
  it('accepts a masked number', async () => {
    const n = lawsuitNumberFor('found');
    const masked = `${n.slice(0, 7)}-${n.slice(7, 9)}.${n.slice(9, 13)}.${n.slice(13, 14)}.${n.slice(14, 16)}.${n.slice(16)}`;
    const { status, body } = await call<Envelope<Lawsuit[]>>(
      sandbox,
      `/lawsuits-by-number/v2?lawsuitNumber=${masked}`,
    );
    expect(status).toBe(200);
    expect(body.data[0]?.numeroProcessoUnico).toBe(n);
    expect(body.data[0]?.tribunal).toBe('TJ-SP');
  });

  it('answers the full record with descricao and attachments in movements', async () => {
    const taxId = richTaxId();
    const [first] = (await call<Envelope<Lawsuit[]>>(sandbox, `/lawsuits/v2?taxId=${taxId}`)).body.data;
    const number = first?.numeroProcessoUnico ?? '';
    const { status, body } = await call<Envelope<Lawsuit[]>>(
      sandbox,
      `/lawsuits-by-number/v2?lawsuitNumber=${number}`,
    );
    expect(status).toBe(200);
    expect(body.data).toHaveLength(1);
    const [record] = body.data;
    expect(record?.numeroProcessoUnico).toBe(number);
    expect(record?.tribunal).toBe(first?.tribunal);
    expect(record?.movimentos.every((m) => typeof m.descricao === 'string' && Array.isArray(m.anexos))).toBe(
      true,
    );
    expect(record?.movimentos.map((m) => m.nomeOriginal)).toEqual(
      first?.movimentos.map((m) => m.nomeOriginal),
    );
  });

  it('answers an empty list for a number not found and 400 for bad check digits', async () => {
    const notFound = lawsuitNumberFor('not-found');
    expect(isJudicialProcess(notFound)).toBe(true);
    expect(notFound.startsWith(LAWSUIT_NOT_FOUND_PREFIX)).toBe(true);
    const valid = await call<Envelope<Lawsuit[]>>(
      sandbox,
      `/lawsuits-by-number/v2?lawsuitNumber=${notFound}`,
    );
    expect(valid.status).toBe(200);
    expect(valid.body.data).toEqual([]);
    expect((await call(sandbox, '/lawsuits-by-number/v2?lawsuitNumber=00020802620125150049')).status).toBe(
      400,
    );
    expect((await call(sandbox, '/lawsuits-by-number/v2')).status).toBe(400);
  });
});
