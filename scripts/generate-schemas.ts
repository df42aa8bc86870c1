/**
 * Writes schemas/<topic suffix>.json from the zod envelopes (src/contract/json-schemas.ts).
 * `npm run schemas`; test/unit/contract/json-schemas.test.ts fails when the files drift.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateJsonSchemas } from '../src/contract/json-schemas.js';

export const SCHEMAS_DIR = join(import.meta.dirname, '..', 'schemas');

export function renderSchema(schema: unknown): string {
  return `${JSON.stringify(schema, null, 2)}\n`;
}

function main(): void {
  mkdirSync(SCHEMAS_DIR, { recursive: true });
  const schemas = generateJsonSchemas();
  for (const file of readdirSync(SCHEMAS_DIR)) {
    if (file.endsWith('.json') && !schemas.has(file.slice(0, -'.json'.length)))
      rmSync(join(SCHEMAS_DIR, file));
  }
  for (const [name, schema] of schemas)
    writeFileSync(join(SCHEMAS_DIR, `${name}.json`), renderSchema(schema));
  console.log(`wrote ${schemas.size} schemas to ${SCHEMAS_DIR}`);
}

if (process.argv[1] === import.meta.filename) main();
