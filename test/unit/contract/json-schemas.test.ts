import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateJsonSchemas, jsonSchemasByTopic } from '../../../src/contract/json-schemas.js';
import { OPERATIONS } from '../../../src/contract/operations.js';
import { SCHEMAS_DIR, renderSchema } from '../../../scripts/generate-schemas.js';

describe('schemas/*.json', () => {
  const generated = generateJsonSchemas();

  it('match what the zod envelopes generate (run `npm run schemas` after changing them)', () => {
    const files = readdirSync(SCHEMAS_DIR)
      .filter((f) => f.endsWith('.json'))
      .sort();
    expect(files).toEqual([...generated.keys()].map((name) => `${name}.json`).sort());
    for (const [name, schema] of generated) {
      expect(readFileSync(join(SCHEMAS_DIR, `${name}.json`), 'utf8'), `${name}.json is stale`).toBe(
        renderSchema(schema),
      );
    }
  });

  it('cover every topic of the contract, the registry-framed ones keyed by their name under a prefix', () => {
    const byTopic = jsonSchemasByTopic('p');
    // Per operation: the two request lanes and the results.
    expect(byTopic.size).toBe(OPERATIONS.length * 3 + 2);
    expect(byTopic.has('p.requests.vehicle-async')).toBe(true);
    // The bulk lane carries the same request: the same schema but for its title.
    const { title: _bulkTitle, ...bulk } = byTopic.get('p.requests.vehicle-async.bulk') ?? {};
    const { title: _title, ...interactive } = byTopic.get('p.requests.vehicle-async') ?? {};
    expect(bulk).toEqual(interactive);
    expect(byTopic.has('p.events.vehicle-search')).toBe(true);
    // The console's audit topic is plain JSON: in schemas/, never registered.
    expect(generated.has('audit')).toBe(true);
    expect(byTopic.has('p.audit')).toBe(false);
  });

  it('describe the request params of each operation with the vendor spellings', () => {
    const request = generated.get('requests.state-registration') as { properties: { params: unknown } };
    const text = JSON.stringify(request.properties.params);
    for (const name of ['cnpj', 'cpf', 'uf', 'ie']) expect(text).toContain(`"${name}"`);
  });
});
