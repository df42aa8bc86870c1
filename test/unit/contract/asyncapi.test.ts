import { readFileSync } from 'node:fs';
import { Parser } from '@asyncapi/parser';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ASYNCAPI_FILE, renderAsyncApi } from '../../../scripts/generate-schemas.js';
import { generateJsonSchemas } from '../../../src/contract/json-schemas.js';
import { OPERATIONS } from '../../../src/contract/operations.js';

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
    expect(document?.channels().length).toBe(OPERATIONS.length * 2 + 2);
    const actions = document
      ?.operations()
      .all()
      .map((op) => `${op.action()} ${op.channels().all()[0]?.address() ?? ''}`);
    expect(actions).toContain('receive {prefix}.requests.vehicle');
    expect(actions).toContain('send {prefix}.errors');
    expect(actions).toContain('send {prefix}.events.vehicle-search');
  });
});
