import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { selectTopics, TOPIC_KINDS } from '../../../src/audit/topics.js';
import { loadConfig } from '../../../src/config.js';
import {
  DEFAULT_RETENTION_DAYS,
  renderDataMapTopics,
  withDataMapTopics,
} from '../../../src/contract/data-map.js';
import { generateJsonSchemas, jsonSchemasByTopic } from '../../../src/contract/json-schemas.js';
import { OPERATIONS, topicNames } from '../../../src/contract/operations.js';
import {
  contractTopicList,
  kindsReadBy,
  RETENTION_SETTINGS,
  TOPICS,
  type TopicRow,
} from '../../../src/contract/topics.js';
import { contractTopics } from '../../../src/producers/topic-setup.js';
import { DATA_MAP_FILE } from '../../../scripts/generate-schemas.js';

const settings = {
  partitions: 3,
  replicationFactor: 1,
  requestRetentionMs: 1,
  outputRetentionMs: 2,
  auditRetentionMs: 3,
};
const retentionBySetting: Record<string, string> = {
  REQUEST_RETENTION_MS: '1',
  OUTPUT_RETENTION_MS: '2',
  AUDIT_RETENTION_MS: '3',
};

/** Each topic topic setup creates under `p`, with its row. */
function createdWithRows(): { name: string; row: TopicRow; config: Map<string, string> }[] {
  const created = contractTopics(topicNames('p'), settings);
  const rowOf = new Map(contractTopicList(OPERATIONS).map(({ row, suffix }) => [`p.${suffix}`, row]));
  return created.map((t) => ({
    name: t.topic,
    row: rowOf.get(t.topic) as TopicRow,
    config: new Map((t.configEntries ?? []).map((e) => [e.name, e.value])),
  }));
}

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

  it('gives every created topic its row’s retention setting, and 2 MiB values where the row says so', () => {
    const created = createdWithRows();
    expect(created.length).toBe(OPERATIONS.length * 3 + 3);
    for (const { name, row, config } of created) {
      expect(config.get('retention.ms'), name).toBe(retentionBySetting[RETENTION_SETTINGS[row.retention]]);
      expect(config.get('max.message.bytes'), name).toBe(
        row.largeValues ? String(2 * 1024 * 1024) : undefined,
      );
    }
    const topics = topicNames('p');
    const retention = (name: string) => created.find((t) => t.name === name)?.config.get('retention.ms');
    expect(retention(topics.request('vehicle', 'bulk'))).toBe('1');
    expect(retention(topics.errors)).toBe('2');
    expect(retention(topics.audit)).toBe('3');
    // Outputs take a result at RESULT_MAX_BYTES; requests keep the broker's limit.
    const maxBytes = (name: string) => created.find((t) => t.name === name)?.config.get('max.message.bytes');
    for (const name of [topics.result('vehicle'), topics.errors, topics.vehicleSearchEvents])
      expect(maxBytes(name), name).toBe(String(2 * 1024 * 1024));
    expect(maxBytes(topics.request('vehicle'))).toBeUndefined();
    expect(maxBytes(topics.audit)).toBeUndefined();
  });

  it('gives every row a schema, registered for the framed rows only', () => {
    const schemas = generateJsonSchemas();
    const framed = jsonSchemasByTopic('p');
    for (const { row, suffix } of contractTopicList(OPERATIONS)) {
      expect(schemas.get(suffix)?.title, suffix).toBeDefined();
      expect(framed.has(`p.${suffix}`), suffix).toBe(row.framed);
    }
    expect(framed.has('p.audit')).toBe(false);
  });

  it('gives every topic the service writes a CloudEvents type (shared/contract.md, "Headers written")', () => {
    const written = TOPICS.filter((row) => row.writers.includes('service'));
    expect(written.map((row) => row.name)).toEqual([
      'results.{operation}',
      'errors',
      'events.vehicle-search',
    ]);
    for (const row of written) expect(row.cloudEventType, row.name).toMatch(/^\^verification\\\./);
  });
});

describe('the audit commands, from the table', () => {
  const topics = topicNames('p');
  const created = createdWithRows();
  const existing = new Set(created.map((t) => t.name));

  it('offer as --kind the kinds replay reads, and select by them every topic replay reads', () => {
    expect(TOPIC_KINDS).toEqual(['requests', 'results', 'errors', 'events']);
    const selected = selectTopics(topics, { kinds: TOPIC_KINDS }, existing);
    const readByReplay = created.filter((t) => t.row.readers.includes('replay')).map((t) => t.name);
    expect(selected.sort()).toEqual(readByReplay.sort());
    expect(selected).not.toContain(topics.audit);
  });

  it('make erase read every topic holding personal data, and redrive the dead letters', () => {
    const erased = new Set(selectTopics(topics, { kinds: kindsReadBy('erase'), lenient: true }, existing));
    for (const { name, row } of created) expect([name, erased.has(name)]).toEqual([name, row.personalData]);
    expect(selectTopics(topics, { kinds: kindsReadBy('redrive') }, existing)).toEqual([topics.errors]);
  });
});

describe('docs/data-map.md', () => {
  const page = readFileSync(DATA_MAP_FILE, 'utf8');

  it('lists the table’s topics as the table says (run `npm run schemas` after changing it)', () => {
    expect(withDataMapTopics(page, renderDataMapTopics())).toBe(page);
    for (const row of TOPICS) expect(page).toContain(row.holds);
    expect(page).toContain('Every topic holds personal data but `<prefix>.audit`.');
  });

  it('drifts, and the test above fails, when a row changes', () => {
    const changed = TOPICS.map((row) =>
      row.name === 'errors' ? { ...row, readers: ['downstream' as const] } : row,
    );
    expect(withDataMapTopics(page, renderDataMapTopics(changed))).not.toBe(page);
  });

  it('names the retention settings’ defaults as src/config.ts has them', () => {
    const config = loadConfig({
      KAFKA_BROKERS: '127.0.0.1:9092',
      VENDOR_BASE_URL: 'http://127.0.0.1:8090',
      ALLOW_INSECURE_VENDOR: 'true',
      VENDOR_API_KEY: 'k',
    });
    const days = (ms: number) => ms / (24 * 3600 * 1000);
    expect(DEFAULT_RETENTION_DAYS).toEqual({
      request: days(config.REQUEST_RETENTION_MS),
      output: days(config.OUTPUT_RETENTION_MS),
      audit: days(config.AUDIT_RETENTION_MS),
    });
  });
});
