/**
 * The sandbox's lawsuit vocabulary beyond the spec's value lists (those are the contract's,
 * src/contract/vocabulary.ts): CNJ court codes, court seats, classes, subjects, movements.
 */
import type { LAWSUIT_FIELDS, LAWSUIT_STATUSES } from '../../contract/vocabulary.js';

/** CNJ court codes (TR) of the state courts of justice (J = 8), in the CNJ table order. */
export const STATE_COURT_BY_CODE = [
  'AC',
  'AL',
  'AP',
  'AM',
  'BA',
  'CE',
  'DF',
  'ES',
  'GO',
  'MA',
  'MT',
  'MS',
  'MG',
  'PA',
  'PB',
  'PR',
  'PE',
  'PI',
  'RJ',
  'RN',
  'RS',
  'RO',
  'RR',
  'SC',
  'SE',
  'SP',
  'TO',
] as const;

/** State of the seat of each regional labour court TRT-1..TRT-24. */
export const LABOUR_COURT_UF = [
  'RJ',
  'SP',
  'MG',
  'RS',
  'BA',
  'PE',
  'CE',
  'PA',
  'PR',
  'DF',
  'AM',
  'SC',
  'PB',
  'RO',
  'SP',
  'MA',
  'ES',
  'GO',
  'AL',
  'SE',
  'RN',
  'PI',
  'MT',
  'MS',
] as const;

export const FEDERAL_REGION_UF = ['DF', 'RJ', 'SP', 'RS', 'PE', 'MG'] as const;

export type LawsuitKind = 'labour' | 'civil' | 'criminal' | 'tax' | 'social';

export interface LawsuitClass {
  nome: string;
  codigoCNJ: string;
}

export interface LawsuitSubject {
  titulo: string;
  codigoCNJ?: string;
}

export const CLASSES: Readonly<Record<LawsuitKind, readonly LawsuitClass[]>> = {
  labour: [
    { nome: 'ACAO TRABALHISTA - RITO ORDINARIO', codigoCNJ: '985' },
    { nome: 'ACAO TRABALHISTA - RITO SUMARISSIMO', codigoCNJ: '1125' },
  ],
  civil: [
    { nome: 'PROCEDIMENTO COMUM CIVEL', codigoCNJ: '7' },
    { nome: 'EXECUCAO DE TITULO EXTRAJUDICIAL', codigoCNJ: '159' },
    { nome: 'PROCEDIMENTO DO JUIZADO ESPECIAL CIVEL', codigoCNJ: '436' },
  ],
  criminal: [{ nome: 'ACAO PENAL - PROCEDIMENTO ORDINARIO', codigoCNJ: '283' }],
  tax: [{ nome: 'EXECUCAO FISCAL', codigoCNJ: '1116' }],
  social: [{ nome: 'PROCEDIMENTO COMUM CIVEL', codigoCNJ: '7' }],
};

export const SUBJECTS: Readonly<Record<LawsuitKind, readonly LawsuitSubject[]>> = {
  labour: [
    { titulo: 'HORAS EXTRAS', codigoCNJ: '2086' },
    { titulo: 'RESCISAO INDIRETA', codigoCNJ: '2435' },
    { titulo: 'ADICIONAL DE INSALUBRIDADE' },
  ],
  civil: [
    { titulo: 'INDENIZACAO POR DANO MORAL', codigoCNJ: '10433' },
    { titulo: 'ATRASO DE VOO', codigoCNJ: '10439' },
    { titulo: 'COBRANCA DE ALUGUEIS' },
    { titulo: 'INCLUSAO INDEVIDA EM CADASTRO DE INADIMPLENTES', codigoCNJ: '6226' },
  ],
  criminal: [
    { titulo: 'FURTO', codigoCNJ: '3416' },
    { titulo: 'ESTELIONATO', codigoCNJ: '3431' },
  ],
  tax: [{ titulo: 'IPTU', codigoCNJ: '5952' }, { titulo: 'DIVIDA ATIVA' }],
  social: [{ titulo: 'AUXILIO-DOENCA PREVIDENCIARIO', codigoCNJ: '6101' }],
};

export const BRANCH_BY_KIND: Record<LawsuitKind, readonly (typeof LAWSUIT_FIELDS)[number][]> = {
  labour: ['DIREITO DO TRABALHO', 'DIREITO PROCESSUAL CIVIL E DO TRABALHO'],
  civil: ['DIREITO CIVIL', 'DIREITO DO CONSUMIDOR'],
  criminal: ['DIREITO PENAL', 'DIREITO PROCESSUAL PENAL'],
  tax: ['DIREITO TRIBUTARIO'],
  social: ['DIREITO PREVIDENCIARIO', 'DIREITO ASSISTENCIAL'],
};

export const AREA_BY_KIND: Record<LawsuitKind, string> = {
  labour: 'TRABALHISTA',
  civil: 'CIVEL',
  criminal: 'CRIMINAL',
  tax: 'TRIBUTARIA',
  social: 'PREVIDENCIARIA',
};

export const OBSERVATION_BY_STATUS: Record<(typeof LAWSUIT_STATUSES)[number], string> = {
  'EM TRAMITACAO': 'Em andamento',
  'EM GRAU DE RECURSO': 'Remetido ao tribunal',
  SUSPENSO: 'Suspenso',
  'ARQUIVAMENTO DEFINITIVO': 'Arquivado definitivamente',
  'ARQUIVAMENTO PROVISORIO': 'Arquivado provisoriamente',
  'ARQUIVADO ADMINISTRATIVAMENTE': 'Arquivado administrativamente',
  ARQUIVAMENTO: 'Arquivado',
};

export const MOVEMENT_TITLES = [
  'DISTRIBUIDO POR SORTEIO',
  'CONCLUSOS PARA DESPACHO',
  'JUNTADA DE PETICAO',
  'AUDIENCIA DESIGNADA',
  'EXPEDICAO DE MANDADO',
  'SENTENCA PROFERIDA',
  'PUBLICADO NO DIARIO DE JUSTICA ELETRONICO',
] as const;

export const CLERK_ROLES = [
  'SERVIDOR',
  'DIRETOR DE SECRETARIA',
  'MAGISTRADO',
  'ANALISTA JUDICIARIO',
] as const;
