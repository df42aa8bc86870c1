import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderDataMapTopics, withDataMapTopics } from '../../../src/contract/data-map.js';
import { generateJsonSchemas, jsonSchemasByTopic } from '../../../src/contract/json-schemas.js';
import { OPERATIONS, topicNames } from '../../../src/contract/operations.js';
import { contractTopicList, TOPICS, type TopicRow } from '../../../src/contract/topics.js';
import { contractTopics } from '../../../src/producers/topic-setup.js';
import { DATA_MAP_FILE } from '../../../scripts/generate-schemas.js';

const settings = {
  partitions: 3,
  replicationFactor: 1,
  requestRetentionMs: 1,
  outputRetentionMs: 2,
  auditRetentionMs: 3,
};

describe('the table of topics', () => {
  it('names each topic once, and topicNames gives exactly the names topic setup creates, in its order', () => {
    const names = contractTopicList(OPERATIONS).map((t) => t.suffix);
    expect(new Set(names).size).toBe(names.length);
    const topics = topicNames('p');
    // Grouped by kind, as start-up created (and logged) them before the table.
    expect(contractTopics(topics, settings).map((t) => t.topic)).toEqual([
      ...topics.requestTopics(),
      ...OPERATIONS.map((op) => topics.result(op)),
      topics.errors,
      topics.vehicleSearchEvents,
      topics.audit,
    ]);
  });

  it('gives each created topic its row’s retention setting, and 2 MiB values where the row says so', () => {
    const topics = topicNames('p');
    const byName = new Map(contractTopics(topics, settings).map((t) => [t.topic, t.configEntries ?? []]));
    const config = (name: string, key: string) => byName.get(name)?.find((e) => e.name === key)?.value;
    expect(config(topics.request('vehicle', 'bulk'), 'retention.ms')).toBe('1');
    expect(config(topics.result('vehicle'), 'retention.ms')).toBe('2');
    expect(config(topics.audit, 'retention.ms')).toBe('3');
    expect(config(topics.errors, 'max.message.bytes')).toBe(String(2 * 1024 * 1024));
    expect(config(topics.request('vehicle'), 'max.message.bytes')).toBeUndefined();
  });

  it('gives every row a schema, registered for the framed rows only', () => {
    const schemas = generateJsonSchemas();
    const framed = jsonSchemasByTopic('p');
    for (const { row, suffix } of contractTopicList(OPERATIONS)) {
      expect(schemas.get(suffix)?.title, suffix).toBeDefined();
      expect(framed.has(`p.${suffix}`), suffix).toBe(row.framed);
    }
  });

  it('makes a new output topic one row: it is created, described and schema’d without another change', () => {
    const added: TopicRow = { ...(TOPICS.find((r) => r.name === 'errors') as TopicRow), name: 'errors.late' };
    const rows = [...TOPICS, added];
    const list = contractTopicList(OPERATIONS, rows);
    expect(list.map((t) => t.suffix)).toContain('errors.late');
    expect(list.find((t) => t.suffix === 'errors.late')?.row.retention).toBe('output');
  });
});

describe('docs/data-map.md', () => {
  it('lists the table’s topics as the table says (run `npm run schemas` after changing it)', () => {
    const page = readFileSync(DATA_MAP_FILE, 'utf8');
    expect(withDataMapTopics(page, renderDataMapTopics())).toBe(page);
    for (const row of TOPICS) expect(renderDataMapTopics()).toContain(row.holds);
  });
});
