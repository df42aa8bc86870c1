import { generateCnpj } from '../identifiers.js';
import { brDate, Prng } from '../random.js';
import { ESOCIAL_DIVERGENT_DIGIT, isRegistryEmpty } from '../scenarios.js';
import {
  ACTIVITIES,
  CITY_BY_UF,
  NEIGHBORHOODS,
  STREETS,
  UFS,
  companyName,
  personName,
  phone,
  zipcode,
  type Uf,
} from './pools.js';

const SITUATIONS = [
  { text: 'HABILITADO', positive: 1 },
  { text: 'ATIVO', positive: 1 },
  { text: 'SUSPENSO', positive: 0 },
  { text: 'INAPTO', positive: 0 },
] as const;

const PROOF_BASE = 'https://sandbox.invalid/comprovantes';

export type SintegraMode =
  { kind: 'cnpj'; cnpj: string } | { kind: 'cpf'; cpf: string; uf: Uf } | { kind: 'ie'; ie: string; uf: Uf };

function registration(prng: Prng, cnpj: string, uf: Uf, ie: string | undefined) {
  const situation = prng.bool(0.8) ? prng.pick(SITUATIONS.slice(0, 2)) : prng.pick(SITUATIONS.slice(2));
  const main = prng.pick(ACTIVITIES);
  const secondary = prng.sample(
    ACTIVITIES.filter((a) => a !== main),
    prng.int(0, 2),
  );
  const name = companyName(prng);
  return {
    cnpj,
    inscricaoEstadual: ie ?? prng.digits(prng.int(9, 13)),
    razaoSocial: name,
    nomeFantasia: name.split(' ').slice(0, 2).join(' '),
    logradouro: prng.pick(STREETS),
    numero: String(prng.int(1, 3000)),
    complemento: prng.bool(0.4) ? `SALA ${String(prng.int(1, 900))}` : '',
    bairro: prng.pick(NEIGHBORHOODS),
    cep: zipcode(prng),
    municipio: CITY_BY_UF[uf],
    uf,
    telefone: phone(prng),
    atividadeEconomica: `${main.code} - ${main.description}`,
    dataInicioAtividade: brDate(prng.instant(1995, 2022)),
    dataSituacaoCadastral: brDate(prng.instant(2015, 2024)),
    regimeRecolhimento: prng.pick(['NORMAL', 'SIMPLES NACIONAL'] as const),
    observacao: '',
    situacaoCadastral: situation.text,
    ocorrenciaFiscal: prng.bool(0.9) ? 'NENHUMA' : 'OMISSO DE DECLARACAO',
    atividadeEconomicaTratada: main.description,
    urlComprovante: `${PROOF_BASE}/sintegra/${prng.uuid()}.pdf`,
    atividadesEconomicasSecundarias: secondary.map((a) => `${a.code} - ${a.description}`),
    atividadesEconomicasSecundariasTratada: secondary.map((a) => a.description),
    situacaoCadastralTratada: situation.positive,
    ...(prng.bool(0.3) ? { camposExclusivos: {} } : {}),
  };
}

/** `data` of GET /receita-federal-and-sintegra; `data.cnpj` is the tax id consulted. */
export function buildSintegra(mode: SintegraMode, seed: string) {
  const prng = Prng.from(`sintegra:${seed}`);
  if (mode.kind === 'ie') {
    const cnpj = generateCnpj(prng);
    return { cnpj, sintegra: { inscricoesEstaduais: [registration(prng, cnpj, mode.uf, mode.ie)] } };
  }
  const taxId = mode.kind === 'cnpj' ? mode.cnpj : mode.cpf;
  if (isRegistryEmpty(taxId)) return { cnpj: taxId, sintegra: { inscricoesEstaduais: [] } };
  const ufs = mode.kind === 'cpf' ? [mode.uf] : prng.sample(UFS, prng.int(1, 3));
  return {
    cnpj: taxId,
    sintegra: { inscricoesEstaduais: ufs.map((uf) => registration(prng, taxId, uf, undefined)) },
  };
}

const ROLES = ['49-Socio-Administrador', '22-Socio', '05-Administrador', '16-Presidente'] as const;

/** `data` of GET /receita-federal-cnpj-qsa. */
export function buildQsa(cnpj: string) {
  const prng = Prng.from(`qsa:${cnpj}`);
  const people = isRegistryEmpty(cnpj) ? 0 : prng.int(1, 4);
  const qsa = Array.from({ length: people }, () => {
    const foreign = prng.bool(0.15);
    return {
      nome: prng.bool(0.85) ? personName(prng) : companyName(prng),
      qualificacao: prng.pick(ROLES),
      nomeRepresentanteLegal: foreign ? personName(prng) : '',
      qualificacaoRepresentanteLegal: foreign ? '17-Procurador' : '',
      paisOrigem: foreign ? prng.pick(['ESTADOS UNIDOS', 'PORTUGAL', 'ARGENTINA'] as const) : '',
    };
  });
  return { cnpj, receitaFederalQsa: { qsa, urlComprovante: `${PROOF_BASE}/qsa/${prng.uuid()}.pdf` } };
}

export interface EsocialInput {
  cpf: string;
  birthdate: string;
  nis: string;
  name: string;
  nisValid: boolean;
}

/** The eligibility record (members `cpf` and `eSocialQualificacaoCadastral`). */
export function buildEsocial(input: EsocialInput) {
  const prng = Prng.from(`esocial:${input.cpf}:${input.nis}`);
  const divergent = input.cpf.endsWith(String(ESOCIAL_DIVERGENT_DIGIT));
  const [mensagem, orientacao] = !input.nisValid
    ? ['NIS invalido.', 'Verifique o NIS informado; se estiver correto, procure o INSS.']
    : divergent
      ? [
          'A data de nascimento informada diverge da existente no CPF.',
          'Procure a Receita Federal para atualizar o CPF.',
        ]
      : ['Os dados estao corretos.', ''];
  return {
    cpf: input.cpf,
    eSocialQualificacaoCadastral: {
      nome: input.name,
      dataNascimento: input.birthdate,
      cpf: input.cpf,
      nis: input.nis,
      mensagem,
      orientacao,
      urlComprovante: `${PROOF_BASE}/esocial/${prng.uuid()}.pdf`,
    },
  };
}
