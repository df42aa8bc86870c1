import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ResultEnvelope } from '../../../src/contract/envelopes.js';
import { fitResult } from '../../../src/producers/shrink-result.js';

const envelope = (images: string[]): ResultEnvelope => ({
  requestId: 'r1',
  operation: 'face-document-lookup',
  status: 'ok',
  params: {},
  response: {
    id: 'v',
    data: { match: true, similarity: 0.9, idCards: images.map((base64) => ({ base64 })) },
  },
  vendor: { httpStatus: 200 },
  attempts: 1,
  receivedAt: '2026-11-21T10:00:00.000Z',
  completedAt: '2026-11-21T10:00:01.000Z',
  origin: { topic: 't', partition: 0, offset: '1' },
});

describe('fitResult', () => {
  it('leaves a small result untouched', () => {
    const small = envelope(['abc']);
    expect(fitResult(small, 10_000)?.envelope).toBe(small);
  });

  it('replaces the largest images by sha256 and length until the result fits', () => {
    const big = 'A'.repeat(50_000);
    const medium = 'B'.repeat(20_000);
    const fitted = fitResult(envelope([medium, big]), 30_000);
    expect(fitted).toBeDefined();
    const cards = (fitted?.envelope.response as { data: { idCards: Record<string, unknown>[] } }).data
      .idCards;
    expect(cards[0]).toEqual({ base64: medium });
    expect(cards[1]).toEqual({ sha256: createHash('sha256').update(big).digest('hex'), length: 50_000 });
    expect(fitted?.envelope.replaced).toEqual([
      {
        path: 'response.data.idCards[1].base64',
        sha256: createHash('sha256').update(big).digest('hex'),
        length: 50_000,
      },
    ]);
    expect(Buffer.byteLength(fitted?.json ?? '')).toBeLessThanOrEqual(30_000);
  });

  it("replaces the request's own image echoed in params too, largest first", () => {
    const selfie = 'S'.repeat(40_000);
    const card = 'C'.repeat(20_000);
    const result = envelope([card]);
    result.params = { cpf: '12345678909', selfie: { base64: selfie } };
    const fitted = fitResult(result, 30_000);
    expect(fitted?.envelope.params).toEqual({
      cpf: '12345678909',
      selfie: { sha256: createHash('sha256').update(selfie).digest('hex'), length: 40_000 },
    });
    expect(fitted?.envelope.replaced?.map((item) => item.path)).toEqual(['params.selfie.base64']);
    expect(JSON.stringify(fitted?.envelope.response)).toContain(card);
    // The request as received is left as it was: the result holds a copy.
    expect(result.params.selfie).toEqual({ base64: selfie });
  });

  it('gives up when even without images the result is too large', () => {
    const result = envelope(['x'.repeat(100)]);
    result.params = { padding: 'p'.repeat(5_000) };
    expect(fitResult(result, 2_000)).toBeUndefined();
  });
});
