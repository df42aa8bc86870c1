import { describe, expect, it } from 'vitest';
import { describePlan, planRedrive, REDRIVE_HEADER } from '../../../src/audit/redrive.js';
import { topicNames } from '../../../src/contract/operations.js';
import { record } from './helpers.js';

const topics = topicNames('p');
const deadLetter = (request: Record<string, unknown>, origin = 'p.requests.vehicle') => ({
  requestId: 'r-1',
  operation: 'vehicle',
  attempts: 5,
  failedAt: '2026-11-21T10:00:00Z',
  error: { kind: 'upstream_unavailable', message: '503', retryable: true },
  request,
  origin: { topic: origin, partition: 1, offset: '41' },
});
const at = { topic: 'p.errors', partition: 2, offset: '99' };

describe('redrive plans', () => {
  it('republishes the request as JSON to origin.topic with the key and a link to the dead letter', () => {
    const request = { requestId: 'r-1', params: { licensePlate: 'ABC1D23' }, metadata: { case: 'A' } };
    const result = planRedrive(
      record({ ...at, value: deadLetter(request), headers: { traceparent: '00-abc-def-01' } }),
      topics,
    );
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const { message } = result.plan;
    expect(message.topic).toBe('p.requests.vehicle');
    // The partition it was read from, not the key's hash: the publisher's partitioner may differ.
    expect(message.partition).toBe(1);
    expect(message.key?.toString()).toBe('ABC1D23');
    expect(JSON.parse(message.value?.toString() ?? '')).toEqual(request);
    expect(message.headers).toEqual({
      [REDRIVE_HEADER]: 'p.errors/2/99',
      'content-type': 'application/json',
      traceparent: '00-abc-def-01',
    });
    expect(describePlan(result.plan)).toMatchObject({
      requestId: 'r-1',
      errorKind: 'upstream_unavailable',
      encoding: 'json',
    });
  });

  it('republishes an unreadable request as its original bytes', () => {
    const bytes = Buffer.from([0, 0, 0, 0, 3, 0x7b, 0x7d]);
    const result = planRedrive(
      record({ ...at, value: deadLetter({ raw: bytes.toString('base64') }) }),
      topics,
    );
    expect(result.ok && result.plan.encoding).toBe('raw');
    expect(result.ok && result.plan.message.value).toEqual(bytes);
    expect(result.ok && result.plan.message.headers['content-type']).toBeUndefined();
  });

  it('skips what it cannot redrive, saying why', () => {
    const reasons = [
      record({ ...at, error: 'not valid JSON' }),
      record({ ...at, value: { hello: 'world' } }),
      record({ ...at, value: deadLetter({ requestId: 'r' }, 'other.requests.vehicle') }),
      record({ ...at, value: deadLetter({ raw: '' }) }),
      record({
        ...at,
        value: deadLetter({
          raw: 'eyJy',
          rawTruncated: true,
          rawBytes: 3_000_000,
          rawSha256: 'ab'.repeat(32),
        }),
      }),
    ].map((r) => {
      const result = planRedrive(r, topics);
      return result.ok ? 'planned' : result.reason;
    });
    expect(reasons).toEqual([
      expect.stringMatching(/could not be decoded/),
      expect.stringMatching(/not a dead letter/),
      expect.stringMatching(/not a request topic/),
      expect.stringMatching(/no value/),
      expect.stringMatching(/first bytes of the request's 3000000 \(rawTruncated\): it cannot be rebuilt/),
    ]);
  });
});
