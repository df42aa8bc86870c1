/**
 * Issue 12, scenario (d): at 256 input partitions, completed outcomes wait longer for their
 * commit, and each encoded value held in the offset tracker was a view of one of Node's shared
 * 64 KiB Buffer pool slabs, keeping the whole slab allocated (25 MiB of slabs for about 12,000
 * held values, measured in a heap snapshot). An encoded value must own memory of its own size.
 */
import type { SchemaRegistry } from '@kafkajs/confluent-schema-registry';
import { describe, expect, it } from 'vitest';
import {
  liveRegistryCodec,
  plainJsonCodec,
  type LiveSchemaIds,
  type ValueCodec,
} from '../../src/producers/value-codec.js';

/** The registry's part, fixed: one id, a schema that serialises to JSON (as Apicurio's JSON schemas do). */
function fixedIds(): LiveSchemaIds {
  const schema = { toBuffer: (value: object) => Buffer.from(JSON.stringify(value)) };
  const client = { getSchema: () => Promise.resolve(schema) } as unknown as SchemaRegistry;
  return { idFor: () => Promise.resolve(7), client: () => client, suspect: () => undefined };
}

const codecs: [string, () => ValueCodec][] = [
  ['plain JSON', plainJsonCodec],
  ['registry framing', () => liveRegistryCodec(fixedIds())],
];

describe.each(codecs)('an encoded value (%s)', (_name, codec) => {
  it('is backed by memory of exactly its own size, not by a shared pool slab', async () => {
    const encode = codec();
    const values: Buffer[] = [];
    for (let i = 0; i < 50; i += 1) {
      values.push(await encode.encode('topic', { requestId: `r-${i}`, status: 'ok' }));
      // Short-lived pooled allocations in between, as the rest of the process makes.
      Buffer.from(`garbage ${i}`);
    }
    for (const value of values) {
      expect(value.byteOffset).toBe(0);
      expect(value.buffer.byteLength).toBe(value.length);
    }
    expect(JSON.parse(values[0]!.subarray(values[0]![0] === 0 ? 5 : 0).toString())).toEqual({
      requestId: 'r-0',
      status: 'ok',
    });
  });
});
