import { z } from 'zod';
import { isRecord } from '../respond.js';
import { envelope, num, scalar, str, strList } from './common.js';

/** vendor-api.md, "State registration record". */
const stateRegistrationItemSchema = z.looseObject({
  cnpj: str,
  inscricaoEstadual: str,
  razaoSocial: str,
  nomeFantasia: str,
  logradouro: str,
  numero: scalar,
  complemento: str,
  bairro: str,
  cep: str,
  municipio: str,
  uf: str,
  telefone: str,
  atividadeEconomica: str,
  dataInicioAtividade: str,
  dataSituacaoCadastral: str,
  regimeRecolhimento: str,
  observacao: str,
  situacaoCadastral: str,
  ocorrenciaFiscal: str,
  atividadeEconomicaTratada: str,
  urlComprovante: str,
  atividadesEconomicasSecundarias: strList,
  atividadesEconomicasSecundariasTratada: strList,
  situacaoCadastralTratada: num,
  camposExclusivos: z.record(z.string(), z.unknown()).nullish(),
});

export const stateRegistrationResponseSchema = envelope(
  z.looseObject({
    cnpj: str,
    sintegra: z
      .looseObject({ inscricoesEstaduais: z.array(stateRegistrationItemSchema).nullish() })
      .nullish(),
  }),
);

/** vendor-api.md, "Company partners record". */
export const companyPartnersResponseSchema = envelope(
  z.looseObject({
    cnpj: str,
    receitaFederalQsa: z
      .looseObject({
        qsa: z
          .array(
            z.looseObject({
              nome: str,
              qualificacao: str,
              nomeRepresentanteLegal: str,
              qualificacaoRepresentanteLegal: str,
              paisOrigem: str,
            }),
          )
          .nullish(),
        urlComprovante: str,
      })
      .nullish(),
  }),
);

/** vendor-api.md, "Social-security eligibility record". */
const esocialRecordSchema = z.looseObject({
  cpf: str,
  eSocialQualificacaoCadastral: z.looseObject({
    nome: str,
    dataNascimento: str,
    cpf: str,
    nis: str,
    mensagem: str,
    orientacao: str,
    urlComprovante: str,
  }),
});

export const esocialResponseSchema = envelope(esocialRecordSchema);

/**
 * The reference table puts the eSocial members under `data`, the sample at the top level
 * (vendor-api.md, "GET /esocial-qualificacao-cadastral"). A top-level answer is lifted into
 * the envelope shape so both parse to `{ id?, version?, metadata?, data }`; `raw` keeps the
 * body as sent.
 */
export function liftEsocialBody(raw: unknown): unknown {
  if (!isRecord(raw) || isRecord(raw.data)) return raw;
  const { id, version, metadata, ...data } = raw;
  const lifted: Record<string, unknown> = { data };
  if (id !== undefined) lifted.id = id;
  if (version !== undefined) lifted.version = version;
  if (metadata !== undefined) lifted.metadata = metadata;
  return lifted;
}

export type StateRegistrationResponse = z.output<typeof stateRegistrationResponseSchema>;
export type CompanyPartnersResponse = z.output<typeof companyPartnersResponseSchema>;
export type EsocialRecord = z.output<typeof esocialRecordSchema>;
export type EsocialResponse = z.output<typeof esocialResponseSchema>;
