import { LAWSUIT_STATUSES } from '../../contract/vocabulary.js';
import { buildCnjNumber, generateCnpj, generateCpf, type CnjParts } from '../identifiers.js';
import { isoDate, isoLocal, Prng } from '../random.js';
import { UFS, companyName, personName } from './pools.js';
import {
  AREA_BY_KIND,
  BRANCH_BY_KIND,
  CLASSES,
  CLERK_ROLES,
  FEDERAL_REGION_UF,
  LABOUR_COURT_UF,
  MOVEMENT_TITLES,
  OBSERVATION_BY_STATUS,
  STATE_COURT_BY_CODE,
  SUBJECTS,
  type LawsuitKind,
} from './lawsuit-vocab.js';

const DAY = 86_400_000;

export interface CourtInfo {
  tribunal: string;
  /** Absent for superior courts: `totalByJustice` then counts the court name. */
  segmento: string | undefined;
  uf: string;
  kinds: readonly LawsuitKind[];
}

/** Court, segment and state that the J.TR digits of a CNJ number stand for. */
export function courtOf(parts: CnjParts): CourtInfo {
  const code = Number(parts.court);
  if (parts.branch === '5') {
    const n = code >= 1 && code <= 24 ? code : 2;
    return {
      tribunal: `TRT-${String(n)}`,
      segmento: 'JUSTICA DO TRABALHO',
      uf: LABOUR_COURT_UF[n - 1] ?? 'SP',
      kinds: ['labour'],
    };
  }
  if (parts.branch === '4') {
    const n = code >= 1 && code <= 6 ? code : 3;
    const uf = FEDERAL_REGION_UF[n - 1] ?? 'SP';
    return { tribunal: `TRF-${String(n)}`, segmento: 'JUSTICA FEDERAL', uf, kinds: ['tax', 'social'] };
  }
  if (parts.branch === '3')
    return { tribunal: 'STJ', segmento: undefined, uf: 'DF', kinds: ['civil', 'criminal'] };
  const uf = STATE_COURT_BY_CODE[code - 1] ?? 'SP';
  return {
    tribunal: `TJ-${uf === 'DF' ? 'DFT' : uf}`,
    segmento: 'JUSTICA ESTADUAL',
    uf,
    kinds: ['civil', 'criminal', 'tax'],
  };
}

/** A random valid CNJ number for a court drawn with a realistic mix (mostly state and labour). */
export function generateLawsuitNumber(prng: Prng): string {
  const roll = prng.next();
  const [branch, court] =
    roll < 0.55
      ? ['8', prng.int(1, 27)]
      : roll < 0.8
        ? ['5', prng.int(1, 24)]
        : roll < 0.94
          ? ['4', prng.int(1, 6)]
          : ['3', 0];
  return buildCnjNumber({
    sequence: `${String(prng.int(0, 9))}${prng.digits(6)}`.replace(/^9999/, '1999'),
    year: prng.int(2010, 2024),
    branch,
    court: String(court).padStart(2, '0'),
    origin: branch === '3' ? '0000' : String(prng.int(1, 9999)).padStart(4, '0'),
  });
}

function lawyer(prng: Prng, uf: string) {
  return {
    tipo: 'ADVOGADO',
    nome: personName(prng),
    cpf: generateCpf(prng),
    ...(prng.bool(0.3) ? { cnpj: generateCnpj(prng) } : {}),
    oab: { uf, numero: String(prng.int(10_000, 499_999)), tipo: 'ADVOGADO' },
  };
}

export function buildParty(
  prng: Prng,
  polo: 'ATIVO' | 'PASSIVO',
  uf: string,
  fixed?: { nome: string; taxId?: string },
) {
  const company = fixed?.taxId !== undefined ? fixed.taxId.length === 14 : prng.bool(0.4);
  const taxId = fixed?.taxId ?? (company ? generateCnpj(prng) : generateCpf(prng));
  return {
    tipo: polo === 'ATIVO' ? 'AUTOR' : 'REU',
    nome: fixed?.nome ?? (company ? companyName(prng) : personName(prng)),
    ...(prng.bool(0.9) ? { polo } : {}),
    ...(company ? { cnpj: taxId } : { cpf: taxId }),
    advogados: Array.from({ length: prng.int(0, 2) }, () => lawyer(prng, uf)),
  };
}

export type Party = ReturnType<typeof buildParty>;

function movements(prng: Prng, from: number, detail: boolean, tribunal: string, number: string) {
  const count = prng.int(2, 6);
  let at = from;
  return Array.from({ length: count }, (_, i) => {
    at += prng.int(1, 120) * DAY;
    const title = i === 0 ? MOVEMENT_TITLES[0] : prng.pick(MOVEMENT_TITLES);
    const base = {
      indice: count - i,
      data: isoLocal(at),
      eMovimento: true,
      nomeOriginal: [title],
      movimentadoPor: { nome: personName(prng), cargo: prng.pick(CLERK_ROLES) },
    };
    // Drawn in both modes so the party search and the by-number lookup stay the same case.
    const withAttachment = prng.bool(0.5);
    if (!detail) return base;
    // The attachment shape is not shown in the spec; `anexos` is the sandbox's choice.
    const anexos = withAttachment
      ? [
          {
            nome: `documento-${String(count - i)}.pdf`,
            tipo: 'application/pdf',
            data: isoLocal(at),
            url: `https://sandbox.invalid/${tribunal}/${number}/anexos/${String(count - i)}`,
          },
        ]
      : [];
    return { ...base, descricao: `${title} - movimento registrado em ${isoDate(at)}`, anexos };
  });
}

function analysis(prng: Prng, kind: LawsuitKind, distributed: number) {
  const status = prng.pick(LAWSUIT_STATUSES);
  const judged = prng.bool(0.5);
  const judgedAt = distributed + prng.int(60, 900) * DAY;
  const archived = status.startsWith('ARQUIV');
  const penalty = kind === 'criminal' && prng.bool(0.6);
  return {
    statusProcesso: status,
    julgamentos: judged
      ? [
          {
            dataJulgamento: isoDate(judgedAt),
            tipoJulgamento: 'SENTENCA',
            statusJulgamento: prng.pick(['PROCEDENTE', 'IMPROCEDENTE', 'PARCIALMENTE PROCEDENTE'] as const),
            diasAteJulgamento: Math.round((judgedAt - distributed) / DAY),
          },
        ]
      : [],
    ...(judged && archived ? { dataTransitoJulgado: isoLocal(judgedAt + 30 * DAY) } : {}),
    ramoDireito: prng.pick(BRANCH_BY_KIND[kind]),
    justicaGratuita: prng.bool(0.3),
    tutelaAntecipada: prng.bool(0.2),
    ...(archived ? { dataArquivamento: isoDate(judgedAt + 60 * DAY) } : {}),
    ...(kind === 'tax' ? { valorExecucao: { moeda: 'BRL', valor: prng.int(1_000, 500_000) } } : {}),
    ...(penalty ? sentence(prng, distributed) : {}),
  };
}

/** Sentence fields: only when a penalty is involved (criminal lawsuits, by draw). */
function sentence(prng: Prng, distributed: number) {
  const total = prng.int(12, 120);
  const served = prng.int(0, total);
  const held = prng.bool(0.4);
  return {
    statusExecucaoPena: held ? 'EM CUMPRIMENTO' : 'AGUARDANDO INICIO',
    regimeAtual: prng.pick(['FECHADO', 'SEMIABERTO', 'ABERTO'] as const),
    execucaoProvisoria: prng.bool(0.2),
    statusBnmp: held ? 'PRESO' : 'SOLTO',
    percentualPenaCumprida: Math.round((served / total) * 100),
    reuPreso: held,
    livramentoCondicional: !held && prng.bool(0.3),
    penaCumprida: `${String(served)} meses`,
    medidaSeguranca: false,
    beneficioArt75: false,
    penaRestante: `${String(total - served)} meses`,
    situacaoSentenciado: held ? 'RECOLHIDO' : 'EM LIBERDADE',
    penaSubstitutiva: prng.bool(0.3) ? 'MULTA' : null,
    interrupcaoCumprimento: false,
    extinto: false,
    dataInicioCumprimento: isoDate(distributed + 400 * DAY),
    penaTotal: `${String(total)} meses`,
    foragido: false,
  };
}

/**
 * The lawsuit record of a CNJ number, seeded by the number alone, so the party search and the
 * by-number lookup describe the same case. `detail` adds `descricao` and attachments to movements.
 */
export function buildLawsuit(number: string, parts: CnjParts, detail: boolean): Record<string, unknown> {
  const prng = Prng.from(`lawsuit:${number}`);
  const court = courtOf(parts);
  const kind = prng.pick(court.kinds);
  const grade = court.tribunal === 'STJ' ? 3 : prng.bool(0.75) ? 1 : 2;
  const distributed = Date.UTC(
    parts.year,
    prng.int(0, 11),
    prng.int(1, 28),
    prng.int(8, 18),
    prng.int(0, 59),
    prng.int(0, 59),
  );
  const cls = prng.pick(CLASSES[kind]);
  const sistema = prng.pick(['PJE', 'ESAJ', 'EPROC', 'PROJUDI'] as const);
  const record: Record<string, unknown> = {
    urlProcesso: `https://${sistema.toLowerCase()}.${court.tribunal.toLowerCase().replace('-', '')}.jus.br/consulta/${number}`,
    numeroProcessoUnico: number,
    ...(prng.bool(0.4)
      ? {
          numeroProcessoAntigo: `${prng.digits(3)}.${String(parts.year).slice(2)}.${prng.digits(6)}-${prng.digits(1)}`,
        }
      : {}),
    grauProcesso: grade,
    ...(grade === 1 && prng.bool(0.7) ? { juiz: personName(prng) } : {}),
    ...(grade > 1 ? { relator: personName(prng) } : {}),
    ...(grade === 2 && prng.bool(0.5) ? { revisores: [personName(prng)] } : {}),
    area: AREA_BY_KIND[kind],
    sistema,
    ...(court.segmento === undefined ? {} : { segmento: court.segmento }),
    tribunalOrigem: court.tribunal === 'STJ' ? `TJ-${prng.pick(UFS)}` : court.tribunal,
    tribunal: court.tribunal,
    uf: court.uf,
    orgaoJulgador: `${String(prng.int(1, 40))}A VARA ${kind === 'labour' ? 'DO TRABALHO' : AREA_BY_KIND[kind]}`,
    unidadeOrigem: `FORO ${prng.pick(['CENTRAL', 'REGIONAL I', 'REGIONAL II'] as const)}`,
    classeProcessual: { ...cls },
    assuntosCNJ: prng.sample(SUBJECTS[kind], prng.int(1, 2)).map((subject) => ({ ...subject })),
    dataDistribuicao: isoLocal(distributed),
    dataAutuacao: isoLocal(distributed + prng.int(0, 2) * DAY),
    partes: [buildParty(prng, 'ATIVO', court.uf), buildParty(prng, 'PASSIVO', court.uf)],
    advogadosSemParte: prng.bool(0.2) ? [lawyer(prng, court.uf)] : [],
    movimentos: movements(prng, distributed, detail, court.tribunal, number),
    processosRelacionados: prng.bool(0.2) ? [{ numeroProcesso: generateLawsuitNumber(prng) }] : [],
    valorCausa: { moeda: 'BRL', valor: prng.int(1_000, 2_000_000) / 100 },
    eTutelaAntecipada: prng.bool(0.2),
    eJusticaGratuita: prng.bool(0.3),
    ePrioritario: prng.bool(0.1),
    eSegredoJustica: prng.bool(0.05),
    eProcessoDigital: prng.bool(0.9),
    dataProcessamento: new Date(
      Date.UTC(
        2025,
        prng.int(0, 5),
        prng.int(1, 28),
        prng.int(0, 23),
        prng.int(0, 59),
        prng.int(0, 59),
        prng.int(0, 999),
      ),
    )
      .toISOString()
      .slice(0, 23),
    statusPredictus: analysis(prng, kind, distributed),
  };
  const status = (record.statusPredictus as { statusProcesso: (typeof LAWSUIT_STATUSES)[number] })
    .statusProcesso;
  return { statusObservacao: OBSERVATION_BY_STATUS[status], ...record };
}
