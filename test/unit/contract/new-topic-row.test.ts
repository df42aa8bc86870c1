/**
 * Issue 51: "a new output topic is one row plus its schema". Each output derived from the table
 * of topics takes the rows as an argument; given the table plus one row, each carries the new
 * topic, with nothing else changed.
 */
import { describe, expect, it } from 'vitest';
import { generateAsyncApi } from '../../../src/contract/asyncapi.js';
import { renderDataMapTopics } from '../../../src/contract/data-map.js';
import { generateJsonSchemas, jsonSchemasByTopic } from '../../../src/contract/json-schemas.js';
import { OPERATIONS, topicNames } from '../../../src/contract/operations.js';
import { TOPICS, type TopicRow } from '../../../src/contract/topics.js';
import { contractTopics } from '../../../src/producers/topic-setup.js';

/** A per-operation output topic of a new kind, with an existing kind of value (a result). */
const previews: TopicRow = {
  name: 'previews.{operation}',
  kind: 'previews',
  key: 'request',
  schema: 'result',
  title: 'Preview: {operation}',
  framed: true,
  retention: 'output',
  largeValues: true,
  summary: 'A preview of each {operation} result',
  message: { name: 'preview.{operation}', title: 'Preview: {operation}' },
  cloudEventType: '^verification\\.preview\\.{operation}$',
  writers: ['service'],
  readers: ['downstream'],
  personalData: true,
  holds: 'a preview of the vendor’s answer',
};
const rows = [...TOPICS, previews];
const settings = {
  partitions: 2,
  replicationFactor: 1,
  requestRetentionMs: 1,
  outputRetentionMs: 2,
  auditRetentionMs: 3,
};

interface AsyncApi {
  channels: Record<string, { address: string }>;
  operations: Record<string, { action: string; summary: string }>;
  components: {
    messages: Record<string, { name: string; headers: { properties: { ce_type?: { pattern: string } } } }>;
  };
}

describe('a new output topic', () => {
  it('is created by topic setup, with the output retention and 2 MiB values', () => {
    const before = contractTopics(topicNames('p'), settings);
    const after = contractTopics(topicNames('p'), settings, rows);
    expect(after.slice(0, before.length)).toEqual(before);
    const added = after.slice(before.length);
    expect(added.map((t) => t.topic)).toEqual(OPERATIONS.map((op) => `p.previews.${op}`));
    for (const topic of added) {
      expect(topic.configEntries).toEqual([
        { name: 'retention.ms', value: '2' },
        { name: 'max.message.bytes', value: String(2 * 1024 * 1024) },
      ]);
    }
  });

  it('has its JSON Schema, registered under its name', () => {
    const schemas = generateJsonSchemas(rows);
    expect(schemas.size).toBe(generateJsonSchemas().size + OPERATIONS.length);
    const { title, ...schema } = schemas.get('previews.vehicle') ?? {};
    expect(title).toBe('Preview: vehicle');
    const { title: _resultTitle, ...result } = schemas.get('results.vehicle') ?? {};
    expect(schema).toEqual(result);
    expect(jsonSchemasByTopic('p', rows).get('p.previews.vehicle')).toEqual(schemas.get('previews.vehicle'));
  });

  it('is a channel of the AsyncAPI document that the service sends, with its CloudEvents type', () => {
    const document = generateAsyncApi('0', rows) as unknown as AsyncApi;
    expect(document.channels['previews.vehicle']?.address).toBe('{prefix}.previews.vehicle');
    expect(document.operations['send.previews.vehicle']).toMatchObject({
      action: 'send',
      summary: 'A preview of each vehicle result',
    });
    const message = document.components.messages['previews.vehicle'];
    expect(message?.name).toBe('preview.vehicle');
    expect(message?.headers.properties.ce_type?.pattern).toBe('^verification\\.preview\\.vehicle$');
    // Everything else as without the row.
    const without = generateAsyncApi('0') as unknown as AsyncApi;
    expect(Object.keys(document.channels).length).toBe(
      Object.keys(without.channels).length + OPERATIONS.length,
    );
    expect(document.channels['results.vehicle']).toEqual(without.channels['results.vehicle']);
  });

  it('is a row of the data map', () => {
    const section = renderDataMapTopics(rows);
    expect(section).toContain('`<prefix>.previews.<operation>`');
    expect(section).toContain('a preview of the vendor’s answer');
    expect(renderDataMapTopics()).not.toContain('previews');
  });
});
