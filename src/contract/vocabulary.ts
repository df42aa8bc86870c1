/**
 * The vendor's closed value lists, spelled exactly as vendor-api.md writes them. The court
 * list is built from the spec's own lists ("Court list") so it can be compared line by line.
 */
import { UFS } from './documents/uf.js';

const SUPERIOR_COURTS = ['STF', 'STJ', 'STM', 'TSE', 'TST', 'CJF'] as const;
const FEDERAL_REGIONAL = range(1, 6).map((n) => `TRF-${n}`);
// Federal justice: the 27 UFs. Courts of justice: the same but DFT replaces DF (TJDFT).
const FEDERAL_JUSTICE = UFS.map((uf) => `JF-${uf}`);
const COURTS_OF_JUSTICE = UFS.map((uf) => `TJ-${uf === 'DF' ? 'DFT' : uf}`);
// Electoral: the spec lists both DF and DFT, so both are kept.
const ELECTORAL = [...UFS.slice(0, UFS.indexOf('DF') + 1), 'DFT', ...UFS.slice(UFS.indexOf('DF') + 1)].map(
  (uf) => `TRE-${uf}`,
);
const LABOUR = range(1, 24).map((n) => `TRT-${n}`);
const MILITARY_JUSTICE = ['TJM-MG', 'TJM-RS', 'TJM-SP'];

export const COURTS: readonly string[] = [
  ...SUPERIOR_COURTS,
  ...FEDERAL_REGIONAL,
  ...FEDERAL_JUSTICE,
  ...COURTS_OF_JUSTICE,
  ...ELECTORAL,
  ...LABOUR,
  ...MILITARY_JUSTICE,
];

export const LAWSUIT_STATUSES = [
  'EM TRAMITACAO',
  'EM GRAU DE RECURSO',
  'SUSPENSO',
  'ARQUIVAMENTO DEFINITIVO',
  'ARQUIVAMENTO PROVISORIO',
  'ARQUIVADO ADMINISTRATIVAMENTE',
  'ARQUIVAMENTO',
] as const;

export const LAWSUIT_FIELDS = [
  'DIREITO A EDUCACAO',
  'DIREITO ADMINISTRATIVO E OUTRAS MATERIAS DE DIREITO PUBLICO',
  'DIREITO AMBIENTAL',
  'DIREITO ASSISTENCIAL',
  'DIREITO CIVIL',
  'DIREITO DA CRIANCA E DO ADOLESCENTE',
  'DIREITO DA SAUDE',
  'DIREITO DO CONSUMIDOR',
  'DIREITO DO TRABALHO',
  'DIREITO ELEITORAL',
  'DIREITO ELEITORAL E PROCESSO ELEITORAL DO STF',
  'DIREITO INTERNACIONAL',
  'DIREITO MARITIMO',
  'DIREITO PENAL',
  'DIREITO PENAL MILITAR',
  'DIREITO PREVIDENCIARIO',
  'DIREITO PROCESSUAL CIVIL E DO TRABALHO',
  'DIREITO PROCESSUAL PENAL',
  'DIREITO PROCESSUAL PENAL MILITAR',
  'DIREITO TRIBUTARIO',
] as const;

export const SEGMENTS = ['JUSTICA ESTADUAL', 'JUSTICA DO TRABALHO', 'JUSTICA FEDERAL'] as const;
export const PART_POLES = ['PASSIVO', 'ATIVO'] as const;

/**
 * `document_types[]` of the face lookup: the three listed values plus `drivers-license`, the
 * spelling a sample path uses (vendor-api.md "POST /ocr-by-face/v1/tax-id/{CPF}"). Both driver
 * licence spellings are passed through as given: which one the vendor honours is not shown.
 */
export const FACE_DOCUMENT_TYPES = ['federal-id', 'passport', 'driver_license', 'drivers-license'] as const;

export const WEBHOOK_METHODS = ['POST', 'GET', 'PATCH', 'PUT'] as const;

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}
