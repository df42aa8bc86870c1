import { describe, expect, it } from 'vitest';
import type { ResultEnvelope } from '../../../src/contract/envelopes.js';
import { topicNames } from '../../../src/contract/operations.js';
import { recordsForResult, type OutputDeps } from '../../../src/producers/output-records.js';
import { plainJsonCodec, type ValueCodec } from '../../../src/producers/value-codec.js';

const result = (images: string[], extra = ''): ResultEnvelope => ({
  requestId: 'r1',
  operation: 'face-document-lookup',
  status: 'ok',
  params: {},
  response: { id: 'v', note: extra, data: { idCards: images.map((base64) => ({ base64 })) } },
  vendor: { httpStatus: 200 },
  attempts: 1,
  receivedAt: '2026-11-21T10:00:00.000Z',
  completedAt: '2026-11-21T10:00:01.000Z',
  origin: { topic: 't', partition: 0, offset: '1' },
});

/** The registry's wire format: magic byte, 4-byte schema id, JSON. */
const framedCodec: ValueCodec = {
  encode: (_topic, value) =>
    Promise.resolve(Buffer.concat([Buffer.from([0, 0, 0, 0, 7]), Buffer.from(JSON.stringify(value))])),
  decode: () => Promise.reject(new Error('not used')),
};

const deps = (resultMaxBytes: number, codec: ValueCodec = plainJsonCodec()): OutputDeps => ({
  codec,
  topics: topicNames('gw'),
  source: '/verification-gateway',
  resultMaxBytes,
  now: () => new Date('2026-11-21T10:00:02.000Z'),
});

const json = (value: Buffer): Record<string, unknown> =>
  JSON.parse(value.subarray(value[0] === 0 ? 5 : 0).toString()) as Record<string, unknown>;

describe('records for a result', () => {
  it('keeps a result that fits, counting the JSON without the registry frame', async () => {
    const small = result(['a'.repeat(100)]);
    const size = Buffer.byteLength(JSON.stringify(small));
    for (const codec of [plainJsonCodec(), framedCodec]) {
      const [record] = await recordsForResult(deps(size, codec), small, { key: null }, null);
      expect(record?.topic).toBe('gw.results.face-document-lookup');
      expect(json(record?.value ?? Buffer.alloc(0))).toEqual(small);
    }
  });

  it('replaces images by their digest when the whole result is one byte over', async () => {
    const big = result(['a'.repeat(5_000)]);
    const size = Buffer.byteLength(JSON.stringify(big));
    const [record] = await recordsForResult(deps(size - 1, framedCodec), big, { key: null }, null);
    const value = json(record?.value ?? Buffer.alloc(0));
    expect(JSON.stringify(value)).not.toContain('a'.repeat(100));
    expect(value.replaced).toMatchObject([{ path: 'response.data.idCards[0].base64', length: 5_000 }]);
  });

  it('dead-letters a result too large even without its images', async () => {
    const records = await recordsForResult(
      deps(500),
      result(['a'.repeat(5_000)], 'b'.repeat(2_000)),
      { key: null },
      null,
    );
    expect(records).toHaveLength(1);
    expect(records[0]?.topic).toBe('gw.errors');
    expect(json(records[0]?.value ?? Buffer.alloc(0))).toMatchObject({
      requestId: 'r1',
      error: { kind: 'result_too_large', retryable: false },
    });
  });

  it('keeps the dead letter of a too-large result within the limit when its params are large too', async () => {
    const padding = 'p'.repeat(30_000);
    const tooLarge = { ...result(['a'.repeat(5_000)]), params: { padding } };
    const raw = Buffer.from(JSON.stringify({ requestId: 'r1', params: { padding } }));
    const [record] = await recordsForResult(deps(20_000), tooLarge, { key: null }, raw);
    const value = record?.value ?? Buffer.alloc(0);
    expect(record?.topic).toBe('gw.errors');
    expect(value.length).toBeLessThanOrEqual(20_000);
    expect(json(value)).toMatchObject({
      error: { kind: 'result_too_large', retryable: false },
      request: { rawTruncated: true, rawBytes: raw.length },
    });
  });
});
