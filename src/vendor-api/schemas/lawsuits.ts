import { z } from 'zod';
import { bool, envelope, num, scalar, str, strList } from './common.js';

/** vendor-api.md, "Lawsuit record". Members are absent when they do not apply. */
const lawyerSchema = z.looseObject({
  tipo: str,
  nome: str,
  cpf: str,
  cnpj: str,
  oab: z.looseObject({ uf: str, numero: scalar, tipo: str }).nullish(),
});

const partySchema = z.looseObject({
  tipo: str,
  nome: str,
  polo: str,
  cpf: str,
  cnpj: str,
  advogados: z.array(lawyerSchema).nullish(),
});

const movementSchema = z.looseObject({
  indice: num,
  data: str,
  eMovimento: bool,
  // A list of strings in the samples; a plain string is accepted too.
  nomeOriginal: z.union([z.array(z.string()), z.string()]).nullish(),
  descricao: str,
  movimentadoPor: z.looseObject({ nome: str, cargo: str }).nullish(),
});

const moneySchema = z.looseObject({ moeda: str, valor: scalar }).nullish();

export const lawsuitSchema = z.looseObject({
  urlProcesso: str,
  numeroProcessoUnico: str,
  numeroProcessoAntigo: str,
  statusObservacao: str,
  grauProcesso: num,
  juiz: str,
  relator: str,
  revisores: strList,
  area: str,
  sistema: str,
  segmento: str,
  tribunalOrigem: str,
  tribunal: str,
  uf: str,
  orgaoJulgador: str,
  unidadeOrigem: str,
  classeProcessual: z.looseObject({ nome: str, codigoCNJ: scalar }).nullish(),
  assuntosCNJ: z.array(z.looseObject({ titulo: str, codigoCNJ: scalar })).nullish(),
  dataDistribuicao: str,
  dataAutuacao: str,
  partes: z.array(partySchema).nullish(),
  advogadosSemParte: z.array(lawyerSchema).nullish(),
  movimentos: z.array(movementSchema).nullish(),
  processosRelacionados: z.array(z.looseObject({ numeroProcesso: str })).nullish(),
  valorCausa: moneySchema,
  eTutelaAntecipada: bool,
  eJusticaGratuita: bool,
  ePrioritario: bool,
  eSegredoJustica: bool,
  eProcessoDigital: bool,
  dataProcessamento: str,
  // Exact member name as the interface spells it (vendor-api.md, "Lawsuit record").
  statusPredictus: z
    .looseObject({
      statusProcesso: str,
      julgamentos: z.array(z.looseObject({})).nullish(),
      dataTransitoJulgado: str,
      ramoDireito: str,
    })
    .nullish(),
});

export const lawsuitsResponseSchema = envelope(z.array(lawsuitSchema));

/**
 * GET /lawsuits-by-number/v2: "`data` is the Lawsuit record in full", while the lawsuit
 * record section says `data` is a list in the samples. Both are accepted and `data` is
 * always a list after parsing; `raw` keeps what was sent.
 */
export const lawsuitByNumberResponseSchema = envelope(
  z.union([z.array(lawsuitSchema), lawsuitSchema]).transform((data) => (Array.isArray(data) ? data : [data])),
);

const countsByKey = z.record(z.string(), z.number()).nullish();

/** vendor-api.md, "Lawsuit summary record". */
export const lawsuitSummarySchema = z.looseObject({
  total: num,
  totalByCourt: countsByKey,
  totalByJustice: countsByKey,
  totalByYear: countsByKey,
});

export const lawsuitsSummaryResponseSchema = envelope(z.array(lawsuitSummarySchema));

export type Lawsuit = z.output<typeof lawsuitSchema>;
export type LawsuitsResponse = z.output<typeof lawsuitsResponseSchema>;
export type LawsuitByNumberResponse = z.output<typeof lawsuitByNumberResponseSchema>;
export type LawsuitSummary = z.output<typeof lawsuitSummarySchema>;
export type LawsuitsSummaryResponse = z.output<typeof lawsuitsSummaryResponseSchema>;
