import { readFileSync } from 'node:fs';
import { Parser } from '@asyncapi/parser';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ASYNCAPI_FILE, renderAsyncApi } from '../../../scripts/generate-schemas.js';
import { generateJsonSchemas } from '../../../src/contract/json-schemas.js';
import { OPERATIONS } from '../../../src/contract/operations.js';

interface AuditMessage {
  headers: { properties: Record<string, unknown> };
  payload: { schema: unknown };
  bindings: { kafka: { key: { enum: string[] } } };
}

describe('schemas/asyncapi.yaml', () => {
  const text = readFileSync(ASYNCAPI_FILE, 'utf8');

  it('matches what the zod envelopes generate (run `npm run schemas` after changing them)', () => {
    expect(text, 'asyncapi.yaml is stale').toBe(renderAsyncApi());
  });

  it('carries, for every topic, the same JSON Schema as schemas/*.json', () => {
    const document = parse(text) as {
      components: { messages: Record<string, { payload: { schema: unknown } }> };
    };
    const schemas = generateJsonSchemas();
    expect(Object.keys(document.components.messages).sort()).toEqual([...schemas.keys()].sort());
    for (const [name, schema] of schemas)
      expect(document.components.messages[name]?.payload.schema).toEqual(schema);
  });

  it('is a valid AsyncAPI 3.0 document, with a channel per topic and the operations of the service', async () => {
    const { document, diagnostics } = await new Parser().parse(text);
    // Severity 0: error (1 warning, 2 information, 3 hint).
    const errors = diagnostics.filter((d) => String(d.severity) === '0');
    expect(errors.map((d) => `${d.path.join('.')}: ${d.message}`)).toEqual([]);
    expect(document?.version()).toBe('3.0.0');
    // Per operation: the interactive and bulk request lanes and the results.
    expect(document?.channels().length).toBe(OPERATIONS.length * 3 + 3);
    const actions = document
      ?.operations()
      .all()
      .map((op) => `${op.action()} ${op.channels().all()[0]?.address() ?? ''}`);
    expect(actions).toContain('receive {prefix}.requests.vehicle');
    expect(actions).toContain('receive {prefix}.requests.vehicle.bulk');
    expect(actions).toContain('send {prefix}.errors');
    expect(actions).toContain('send {prefix}.events.vehicle-search');
    expect(actions).toContain('send {prefix}.audit');
    // The parser (spectral rules over the whole document) takes 3 s alone on this machine and
    // more while other tests load it: vitest's 5 s default failed it under CI's load.
  }, 60_000);

  it('describes the audit topic as plain JSON keyed by the action, with the schema the console and the commands write', () => {
    const document = parse(text) as {
      channels: Record<string, { address: string; messages: Record<string, { $ref: string }> }>;
      components: { messages: Record<string, AuditMessage> };
    };
    expect(document.channels.audit?.address).toBe('{prefix}.audit');
    expect(document.channels.audit?.messages.audit?.$ref).toBe('#/components/messages/audit');
    const audit = document.components.messages.audit;
    expect(audit?.payload.schema).toEqual(generateJsonSchemas().get('audit'));
    // No registry framing: the console writes JSON as is, whatever SCHEMA_REGISTRY_URL says.
    expect(audit?.bindings.kafka).not.toHaveProperty('schemaIdLocation');
    expect(audit?.bindings.kafka.key.enum).toEqual([
      'reveal',
      'redrive-started',
      'redrive',
      'dead-letter-search',
      'replay-started',
      'replay',
      'redrive-keys-shown',
      'erase-started',
      'erase',
    ]);
    expect(Object.keys(audit?.headers.properties ?? {})).toEqual(['content-type']);
  });
});
