import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../src/sandbox/index.js';
import { cnpjFor, cpfFor, nisFor } from '../../../src/sandbox/scenarios.js';
import { call, startSandbox, withoutVolatile, type Envelope } from './helpers.js';

interface Registration {
  cnpj: string;
  inscricaoEstadual: string;
  uf: string;
  situacaoCadastral: string;
  situacaoCadastralTratada: number;
  dataSituacaoCadastral: string;
  atividadesEconomicasSecundarias: string[];
}
interface Sintegra {
  cnpj: string;
  sintegra: { inscricoesEstaduais: Registration[] };
}
interface Qsa {
  cnpj: string;
  receitaFederalQsa: { qsa: Record<string, string>[]; urlComprovante: string };
}
interface Esocial {
  cpf: string;
  eSocialQualificacaoCadastral: Record<string, string>;
}

const mask = (cnpj: string) =>
  `${cnpj.slice(0, 2)}.${cnpj.slice(2, 5)}.${cnpj.slice(5, 8)}/${cnpj.slice(8, 12)}-${cnpj.slice(12)}`;

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(async () => {
  await sandbox.close();
});

describe('GET /receita-federal-and-sintegra', () => {
  it('answers by company tax id, with or without mask, version v2', async () => {
    const cnpj = cnpjFor('happy');
    const plain = await call<Envelope<Sintegra>>(sandbox, `/receita-federal-and-sintegra?cnpj=${cnpj}`);
    expect(plain.status).toBe(200);
    expect(plain.body.version).toBe('v2');
    expect(plain.body.data.cnpj).toBe(cnpj);
    const items = plain.body.data.sintegra.inscricoesEstaduais;
    expect(items.length).toBeGreaterThan(0);
    for (const item of items) {
      expect(item.situacaoCadastralTratada === 1).toBe(
        ['HABILITADO', 'ATIVO'].includes(item.situacaoCadastral),
      );
      expect(item.dataSituacaoCadastral).toMatch(/^\d{2}\/\d{2}\/\d{4}$/);
      expect(item).not.toHaveProperty('dataInicioActividade');
      expect(item).toHaveProperty('dataInicioAtividade');
    }
    const masked = await call<Envelope<Sintegra>>(
      sandbox,
      `/receita-federal-and-sintegra?cnpj=${encodeURIComponent(mask(cnpj))}`,
    );
    expect(withoutVolatile(masked.body)).toEqual(withoutVolatile(plain.body));
  });

  it('answers by person tax id with state and by state registration with state', async () => {
    const byCpf = await call<Envelope<Sintegra>>(
      sandbox,
      `/receita-federal-and-sintegra?cpf=${cpfFor('happy')}&uf=MG`,
    );
    expect(byCpf.status).toBe(200);
    expect(byCpf.body.data.sintegra.inscricoesEstaduais.every((i) => i.uf === 'MG')).toBe(true);
    const byIe = await call<Envelope<Sintegra>>(sandbox, '/receita-federal-and-sintegra?ie=123456789&uf=SP');
    expect(byIe.body.data.sintegra.inscricoesEstaduais[0]).toMatchObject({
      inscricaoEstadual: '123456789',
      uf: 'SP',
    });
    // São Paulo's rural producers' numbers start with a letter; the service accepts them too.
    const rural = await call<Envelope<Sintegra>>(
      sandbox,
      '/receita-federal-and-sintegra?ie=P0112345678&uf=SP',
    );
    expect(rural.status).toBe(200);
  });

  it('answers an empty registration list by rule', async () => {
    const { body } = await call<Envelope<Sintegra>>(
      sandbox,
      `/receita-federal-and-sintegra?cnpj=${cnpjFor('registry-empty')}`,
    );
    expect(body.data.sintegra.inscricoesEstaduais).toEqual([]);
  });

  it('answers 400 for no mode, two modes, a missing or bad uf and a short tax id', async () => {
    const cnpj = cnpjFor('happy');
    const queries = [
      '',
      `?cnpj=${cnpj}&cpf=${cpfFor('happy')}&uf=SP`,
      `?cpf=${cpfFor('happy')}`,
      '?ie=123&uf=XX',
      `?cnpj=${cnpj.slice(1)}`,
    ];
    for (const query of queries) {
      const { status, body } = await call(sandbox, `/receita-federal-and-sintegra${query}`);
      expect(status, query).toBe(400);
      expect(body.error.statusCode).toBe(400);
    }
  });
});

describe('GET /receita-federal-cnpj-qsa', () => {
  it('answers the partner list, version v2', async () => {
    const cnpj = cnpjFor('happy');
    const { status, body } = await call<Envelope<Qsa>>(
      sandbox,
      `/receita-federal-cnpj-qsa?taxId=${encodeURIComponent(mask(cnpj))}`,
    );
    expect(status).toBe(200);
    expect(body.version).toBe('v2');
    expect(body.data.cnpj).toBe(cnpj);
    expect(body.data.receitaFederalQsa.qsa.length).toBeGreaterThan(0);
    for (const person of body.data.receitaFederalQsa.qsa) {
      expect(Object.keys(person).sort()).toEqual([
        'nome',
        'nomeRepresentanteLegal',
        'paisOrigem',
        'qualificacao',
        'qualificacaoRepresentanteLegal',
      ]);
    }
    expect(body.data.receitaFederalQsa.urlComprovante).toMatch(/^https:\/\//);
  });

  it('answers an empty list by rule and 400 without a valid taxId', async () => {
    const empty = await call<Envelope<Qsa>>(
      sandbox,
      `/receita-federal-cnpj-qsa?taxId=${cnpjFor('registry-empty')}`,
    );
    expect(empty.body.data.receitaFederalQsa.qsa).toEqual([]);
    expect((await call(sandbox, '/receita-federal-cnpj-qsa')).status).toBe(400);
    expect((await call(sandbox, '/receita-federal-cnpj-qsa?taxId=11111111111111')).status).toBe(400);
  });
});

describe('GET /esocial-qualificacao-cadastral', () => {
  const query = (cpf: string, nis = nisFor('valid')) =>
    `/esocial-qualificacao-cadastral?taxId=${cpf}&birthdate=01/02/1990&nis=${nis}&name=Ana%20Lima`;

  it('answers at the top level, as the sample, for the top-level rule', async () => {
    const cpf = cpfFor('esocial-top-level');
    const { status, body } = await call<Esocial>(sandbox, query(cpf));
    expect(status).toBe(200);
    expect(Object.keys(body).sort()).toEqual(['cpf', 'eSocialQualificacaoCadastral']);
    expect(body.eSocialQualificacaoCadastral).toMatchObject({
      cpf,
      nis: nisFor('valid'),
      dataNascimento: '01/02/1990',
      nome: 'ANA LIMA',
    });
    expect(body.eSocialQualificacaoCadastral.mensagem).toMatch(/corretos/);
  });

  it('answers under data, as the reference table, for the other rule', async () => {
    const cpf = cpfFor('esocial-under-data');
    const { status, body } = await call<Envelope<Esocial>>(sandbox, query(cpf));
    expect(status).toBe(200);
    expect(body.data.cpf).toBe(cpf);
    expect(body.data.eSocialQualificacaoCadastral.cpf).toBe(cpf);
    expect(typeof body.metadata.timeSpent).toBe('number');
  });

  it('reports an invalid NIS and a divergent birth date in the message', async () => {
    const badNis = await call<Esocial>(sandbox, query(cpfFor('esocial-top-level'), nisFor('invalid')));
    expect(badNis.body.eSocialQualificacaoCadastral.mensagem).toMatch(/NIS/);
    const divergent = await call<Envelope<Esocial>>(sandbox, query(cpfFor('esocial-divergent')));
    expect(divergent.body.data.eSocialQualificacaoCadastral.mensagem).toMatch(/diverge/);
  });

  it('answers 400 when any of the four parameters is missing or malformed', async () => {
    const cpf = cpfFor('esocial-top-level');
    const full = { taxId: cpf, birthdate: '01/02/1990', nis: nisFor('valid'), name: 'ANA' };
    for (const drop of Object.keys(full)) {
      const params = new URLSearchParams(Object.entries(full).filter(([k]) => k !== drop));
      const { status, body } = await call(sandbox, `/esocial-qualificacao-cadastral?${params.toString()}`);
      expect(status, drop).toBe(400);
      expect(body.error.message).toContain(drop);
    }
    const badDate = new URLSearchParams({ ...full, birthdate: '1990-02-01' });
    expect((await call(sandbox, `/esocial-qualificacao-cadastral?${badDate.toString()}`)).status).toBe(400);
  });
});
