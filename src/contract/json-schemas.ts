import { z } from 'zod';
import { auditEventSchema } from './audit-events.js';
import {
  errorEnvelopeSchema,
  requestEnvelopeSchema,
  resultEnvelopeSchema,
  vehicleSearchEventSchema,
} from './envelopes.js';
import { OPERATIONS, topicNames, type Operation } from './operations.js';
import { paramsSchemas } from './params.js';

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

/** Schema file name (without `.json`) → schema; names are the topic names after the prefix. */
export function generateJsonSchemas(): Map<string, JsonSchema> {
  const schemas = new Map<string, JsonSchema>();
  for (const operation of OPERATIONS) {
    const request = requestEnvelopeSchema.extend({ params: paramsSchemas[operation] as z.ZodType });
    // Requests are written by others: describe what we accept (input side of the schemas).
    schemas.set(`requests.${operation}`, toJson(request, `Request: ${operation}`, 'input'));
    // The bulk lane carries the same requests (shared/contract.md, "Lanes").
    schemas.set(`requests.${operation}.bulk`, toJson(request, `Request (bulk lane): ${operation}`, 'input'));
    schemas.set(`results.${operation}`, toJson(resultEnvelopeSchema, `Result: ${operation}`, 'output'));
  }
  schemas.set('errors', toJson(errorEnvelopeSchema, 'Dead letter', 'output'));
  schemas.set('events.vehicle-search', toJson(vehicleSearchEventSchema, 'Vehicle-search event', 'output'));
  schemas.set('audit', toJson(auditEventSchema, 'Audit event (console, erase command)', 'output'));
  return schemas;
}

/**
 * The schemas registered under `<topic>-value`, keyed by full topic name under a prefix: every
 * topic the service frames for the registry. The audit topic is plain JSON, so not among them.
 */
export function jsonSchemasByTopic(prefix: string): Map<string, JsonSchema> {
  const topics = topicNames(prefix);
  const all = generateJsonSchemas();
  const byTopic = new Map<string, JsonSchema>();
  const put = (topic: string, name: string): void => {
    const schema = all.get(name);
    if (schema) byTopic.set(topic, schema);
  };
  for (const operation of OPERATIONS as readonly Operation[]) {
    put(topics.request(operation), `requests.${operation}`);
    put(topics.request(operation, 'bulk'), `requests.${operation}.bulk`);
    put(topics.result(operation), `results.${operation}`);
  }
  put(topics.errors, 'errors');
  put(topics.vehicleSearchEvents, 'events.vehicle-search');
  return byTopic;
}
