import { z } from 'zod';
import { auditEventSchema } from './audit-events.js';
import {
  errorEnvelopeSchema,
  requestEnvelopeSchema,
  resultEnvelopeSchema,
  vehicleSearchEventSchema,
} from './envelopes.js';
import { OPERATIONS, type Operation } from './operations.js';
import { paramsSchemas } from './params.js';
import { contractTopicList, forOperation, TOPICS, type SchemaName, type TopicRow } from './topics.js';

/**
 * JSON Schemas (draft-07, what Confluent-compatible registries and ajv read) of every topic's
 * values, generated from the zod envelopes: one source of truth. Files in schemas/ are written
 * by `npm run schemas`; a test fails when they drift from this.
 *
 * Check digits, exactly-one-of rules and other refinements cannot be said in JSON Schema; the
 * service still enforces them and dead-letters what breaks them.
 */
export type JsonSchema = Record<string, unknown>;

const toJson = (schema: z.ZodType, title: string, io: 'input' | 'output'): JsonSchema => ({
  ...z.toJSONSchema(schema, { target: 'draft-7', io, unrepresentable: 'any' }),
  title,
});

/**
 * Each kind of value's zod schema, for the table of topics (contract/topics.ts): a new kind of
 * value is one entry here. Requests are written by others: their schemas describe what we
 * accept (the input side); the rest describe what we write.
 */
const VALUE_SCHEMAS: Record<
  SchemaName,
  (operation: Operation | undefined) => { zod: z.ZodType; io: 'input' | 'output' }
> = {
  request: (operation) => {
    if (operation === undefined) throw new Error('a request schema is per operation');
    return {
      zod: requestEnvelopeSchema.extend({ params: paramsSchemas[operation] as z.ZodType }),
      io: 'input',
    };
  },
  result: () => ({ zod: resultEnvelopeSchema, io: 'output' }),
  'dead-letter': () => ({ zod: errorEnvelopeSchema, io: 'output' }),
  'vehicle-search-event': () => ({ zod: vehicleSearchEventSchema, io: 'output' }),
  'audit-event': () => ({ zod: auditEventSchema, io: 'output' }),
};

/**
 * Schema file name (without `.json`) → schema, one per topic of the table (`rows`); names are
 * the topic names after the prefix.
 */
export function generateJsonSchemas(rows: readonly TopicRow[] = TOPICS): Map<string, JsonSchema> {
  const schemas = new Map<string, JsonSchema>();
  for (const { row, operation, suffix } of contractTopicList(OPERATIONS, rows)) {
    const op = operation as Operation | undefined;
    const { zod, io } = VALUE_SCHEMAS[row.schema](op);
    schemas.set(suffix, toJson(zod, forOperation(row.title, op), io));
  }
  return schemas;
}

/**
 * The schemas registered under `<topic>-value`, keyed by full topic name under a prefix: every
 * topic the service frames for the registry (the audit topic is plain JSON, so not among them).
 */
export function jsonSchemasByTopic(
  prefix: string,
  rows: readonly TopicRow[] = TOPICS,
): Map<string, JsonSchema> {
  const all = generateJsonSchemas(rows);
  const byTopic = new Map<string, JsonSchema>();
  for (const { row, suffix } of contractTopicList(OPERATIONS, rows)) {
    const schema = all.get(suffix);
    if (row.framed && schema) byTopic.set(`${prefix}.${suffix}`, schema);
  }
  return byTopic;
}
