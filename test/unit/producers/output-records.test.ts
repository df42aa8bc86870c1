import { describe, expect, it } from 'vitest';
import type { ResultEnvelope } from '../../../src/contract/envelopes.js';
import { topicNames } from '../../../src/contract/operations.js';
import {
  recordsForResult,
  type OutputDeps,
  type ResultToWrite,
} from '../../../src/producers/output-records.js';
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

const received = {
  requestId: 'r1',
  params: { cpf: '52998224725' },
  source: 'onboarding',
  extra: { kept: true },
};
const toWrite = (envelope: ResultEnvelope, opensSearch = true): ResultToWrite => ({
  result: envelope,
  request: received,
  opensSearch,
});

/** The registry's wire format: magic byte, 4-byte schema id, JSON. */
const framedCodec: ValueCodec = {
  encode: (_topic, value) =>
    Promise.resolve(Buffer.concat([Buffer.from([0, 0, 0, 0, 7]), Buffer.from(JSON.stringify(value))])),
  decode: () => Promise.reject(new Error('not used')),
  readRequest: () => Promise.reject(new Error('not used')),
  prepare: () => Promise.resolve(),
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
      const [record] = await recordsForResult(deps(size, codec), toWrite(small), { key: null }, null);
      expect(record?.topic).toBe('gw.results.face-document-lookup');
      expect(json(record?.value ?? Buffer.alloc(0))).toEqual(small);
    }
  });

  it('replaces images by their digest when the whole result is one byte over', async () => {
    const big = result(['a'.repeat(5_000)]);
    const size = Buffer.byteLength(JSON.stringify(big));
    const [record] = await recordsForResult(deps(size - 1, framedCodec), toWrite(big), { key: null }, null);
    const value = json(record?.value ?? Buffer.alloc(0));
    expect(JSON.stringify(value)).not.toContain('a'.repeat(100));
    expect(value.replaced).toMatchObject([{ path: 'response.data.idCards[0].base64', length: 5_000 }]);
  });

  it("writes a result from its response's JSON when handed it, and still shrinks it when one byte over", async () => {
    const big = result(['a'.repeat(5_000)]);
    const responseJson = JSON.stringify(big.response);
    const size = Buffer.byteLength(JSON.stringify(big));
    const given = { ...toWrite(big), responseJson };
    const [whole] = await recordsForResult(deps(size), given, { key: null }, null);
    expect(json(whole?.value ?? Buffer.alloc(0))).toEqual(big);
    const [shrunk] = await recordsForResult(deps(size - 1), given, { key: null }, null);
    const value = json(shrunk?.value ?? Buffer.alloc(0));
    expect(JSON.stringify(value)).not.toContain('a'.repeat(100));
    expect(value.replaced).toMatchObject([{ path: 'response.data.idCards[0].base64', length: 5_000 }]);
  });

  it('dead-letters a result too large even without its images', async () => {
    const records = await recordsForResult(
      deps(500),
      toWrite(result(['a'.repeat(5_000)], 'b'.repeat(2_000))),
      { key: null },
      null,
    );
    expect(records).toHaveLength(1);
    expect(records[0]?.topic).toBe('gw.errors');
    expect(json(records[0]?.value ?? Buffer.alloc(0))).toMatchObject({
      requestId: 'r1',
      error: { kind: 'result_too_large', retryable: false },
      // The request as received (contract.md), members the service does not know included.
      request: received,
    });
  });

  it('keeps the dead letter of a too-large result within the limit when its params are large too', async () => {
    const padding = 'p'.repeat(30_000);
    const tooLarge = { ...result(['a'.repeat(5_000)]), params: { padding } };
    const request = { requestId: 'r1', params: { padding } };
    const raw = Buffer.from(JSON.stringify(request));
    const [record] = await recordsForResult(
      deps(20_000),
      { result: tooLarge, request, opensSearch: true },
      { key: null },
      raw,
    );
    const value = record?.value ?? Buffer.alloc(0);
    expect(record?.topic).toBe('gw.errors');
    expect(value.length).toBeLessThanOrEqual(20_000);
    expect(json(value)).toMatchObject({
      error: { kind: 'result_too_large', retryable: false },
      request: { rawTruncated: true, rawBytes: raw.length },
    });
  });

  it("writes an accepted search's pending event only for the message that opens the search", async () => {
    const accepted: ResultEnvelope = {
      ...result([]),
      operation: 'vehicle-async',
      status: 'accepted',
      searchId: 's-1',
      response: { id: 's-1' },
    };
    const first = await recordsForResult(deps(100_000), toWrite(accepted, true), { key: null }, null);
    expect(first.map((r) => r.topic)).toEqual(['gw.results.vehicle-async', 'gw.events.vehicle-search']);
    expect(json(first[1]?.value ?? Buffer.alloc(0))).toMatchObject({ searchId: 's-1', status: 'pending' });
    const copy = await recordsForResult(deps(100_000), toWrite(accepted, false), { key: null }, null);
    expect(copy.map((r) => r.topic)).toEqual(['gw.results.vehicle-async']);
  });
});
