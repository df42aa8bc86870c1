/**
 * Writes schemas/<topic suffix>.json and schemas/asyncapi.yaml from the zod envelopes
 * (src/contract/json-schemas.ts, src/contract/asyncapi.ts), and the topics of docs/data-map.md
 * from the table of topics (src/contract/topics.ts). `npm run schemas`;
 * test/unit/contract/json-schemas.test.ts, asyncapi.test.ts and topics.test.ts fail when the
 * files drift.
 */
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { generateAsyncApi } from '../src/contract/asyncapi.js';
import { renderDataMapTopics, withDataMapTopics } from '../src/contract/data-map.js';
import { generateJsonSchemas } from '../src/contract/json-schemas.js';

export const SCHEMAS_DIR = join(import.meta.dirname, '..', 'schemas');

export function renderSchema(schema: unknown): string {
  return `${JSON.stringify(schema, null, 2)}\n`;
}

export const ASYNCAPI_FILE = join(SCHEMAS_DIR, 'asyncapi.yaml');

export const DATA_MAP_FILE = join(import.meta.dirname, '..', 'docs', 'data-map.md');

export function renderAsyncApi(): string {
  const { version } = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'package.json'), 'utf8')) as {
    version: string;
  };
  // aliasDuplicateObjects off: the document stays plain YAML, without anchors.
  return stringify(generateAsyncApi(version), { aliasDuplicateObjects: false, lineWidth: 0 });
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
  writeFileSync(ASYNCAPI_FILE, renderAsyncApi());
  writeFileSync(DATA_MAP_FILE, withDataMapTopics(readFileSync(DATA_MAP_FILE, 'utf8'), renderDataMapTopics()));
  console.log(
    `wrote ${schemas.size} schemas and asyncapi.yaml to ${SCHEMAS_DIR}, and the topics of ${DATA_MAP_FILE}`,
  );
}

if (process.argv[1] === import.meta.filename) main();
