import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { OPERATIONS } from '../../src/contract/operations.js';
import { paramsSchemas } from '../../src/contract/params.js';
import { createLogger, REDACTED_KEYS } from '../../src/observability/logger.js';
import * as classify from '../../src/vendor-api/schemas/classify.js';
import * as common from '../../src/vendor-api/schemas/common.js';
import * as face from '../../src/vendor-api/schemas/face.js';
import * as lawsuits from '../../src/vendor-api/schemas/lawsuits.js';
import * as registry from '../../src/vendor-api/schemas/registry.js';
import * as vehicle from '../../src/vendor-api/schemas/vehicle.js';

/**
 * Field names of params and vendor responses that carry no personal data. Every other field name
 * must be redacted: a new field fails this test until someone decides which list it joins.
 */
const NOT_PERSONAL = new Set(
  `InvoicedDocumentType activeFlag activities area assuntosCNJ atividadeEconomica
  atividadeEconomicaTratada atividadesEconomicasSecundarias atividadesEconomicasSecundariasTratada
  axle brandModel brandModelCode camposExclusivos capacity cargo category chassisRemark city
  classeProcessual classification client code codigoCNJ color confidence contentType country courts
  createdAt cylinders data dataAutuacao dataDistribuicao dataInicioAtividade dataProcessamento
  dataSituacaoCadastral dataTransitoJulgado debitTypeGuid descricao description distributionDate
  distributionDateEqual distributionDateFinal documentTypes eJusticaGratuita eMovimento
  ePrioritario eProcessoDigital eSegredoJustica eSocialQualificacaoCadastral eTutelaAntecipada
  encoding fieldname filename filesInfo fuel fuelTankCapacityLiters grade grauProcesso id ie indice
  inscricaoEstadual inscricoesEstaduais insuranceClaim invoiceState invoicedDocumentType issuedAt
  julgamentos kind lawsuitFields lawsuitNumber lawsuitStatuses lawsuitTypes legalName
  legalNatureCode legalNatureDescription licensePlateCity licensePlateState licensedStatus
  licensedUntil loadCapacityKg manufactureYear match maxTractionCapacity mensagem metada method
  mimetype modelYear moeda movimentadoPor movimentos municipio nomeFantasia nomeOriginal number
  numero numeroProcesso numeroProcessoAntigo numeroProcessoUnico observacao occurrence
  ocorrenciaFiscal opening orgaoJulgador orientacao origin page pages paisOrigem partPole polo
  potency processosRelacionados proprietaryDocumentType qualificacao
  qualificacaoRepresentanteLegal ramoDireito razaoSocial recall regimeRecolhimento registryId
  renainfRestrictionIndicator renajudRestrictionIndicator requestId restrictions
  rfbRestrictionIndicator robberyOrTheft segment segmento sha256 shareCapital side sides
  similarity sintegra sistema situacaoCadastral situacaoCadastralTratada situation size status
  statusObservacao statusPredictus statusProcesso subtype timeSpent tipo titulo topics total
  totalByCourt totalByJustice totalByYear totalGrossWeight tribunal tribunalOrigem type uf
  unidadeOrigem valor valorCausa vehicleData vehicleGroup vehicleType version yearOfLastLicensing`
    .split(/\s+/)
    .filter(Boolean),
);

/** Every property name of a JSON Schema, at any depth. */
function propertyNames(schema: unknown, names: Set<string>): Set<string> {
  if (Array.isArray(schema)) for (const item of schema) propertyNames(item, names);
  if (typeof schema !== 'object' || schema === null) return names;
  for (const [key, field] of Object.entries(schema as Record<string, unknown>)) {
    if (key === 'properties' && typeof field === 'object' && field !== null)
      for (const name of Object.keys(field)) names.add(name);
    propertyNames(field, names);
  }
  return names;
}

function shapeFieldNames(): Set<string> {
  const names = new Set<string>();
  const modules: Record<string, unknown>[] = [classify, common, face, lawsuits, registry, vehicle];
  const responses: unknown[] = modules.flatMap((module) => Object.values(module));
  const shapes: unknown[] = [...OPERATIONS.map((operation) => paramsSchemas[operation]), ...responses];
  for (const shape of shapes)
    if (shape instanceof z.ZodType)
      propertyNames(z.toJSONSchema(shape, { unrepresentable: 'any', io: 'input' }), names);
  return names;
}

function capture() {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return { logger: createLogger({ level: 'info', destination: stream }), read: () => text };
}

describe('log redaction (issue 14, case 9)', () => {
  const names = [...shapeFieldNames()];

  it('classifies every field name of every operation’s params and responses', () => {
    expect(names.length).toBeGreaterThan(100);
    const undecided = names.filter(
      (name) => !NOT_PERSONAL.has(name) && !REDACTED_KEYS.has(name.toLowerCase()),
    );
    expect(undecided).toEqual([]);
  });

  it('redacts every personal field however deep it nests, in objects, arrays and error causes', async () => {
    const { logger, read } = capture();
    const personal = names.filter((name) => REDACTED_KEYS.has(name.toLowerCase()));
    for (const name of personal) {
      const secret = `secret-${name}-4f1c`;
      const nested = { context: { deadLetter: { request: [{ inner: { [name]: secret } }] } } };
      const err = new Error('wrapped', { cause: { detail: { [name]: secret } } });
      logger.warn({ ...nested, err }, 'line');
    }
    await new Promise((resolve) => setImmediate(resolve));
    const text = read();
    expect(text.split('\n').filter(Boolean)).toHaveLength(personal.length);
    for (const name of personal) expect(text).not.toContain(`secret-${name}-4f1c`);
  });

  it('keeps fields that are not personal readable', async () => {
    const { logger, read } = capture();
    logger.info({ context: { deep: { requestId: 'r-77', status: 'ok' } } }, 'line');
    await new Promise((resolve) => setImmediate(resolve));
    expect(read()).toContain('r-77');
  });
});
