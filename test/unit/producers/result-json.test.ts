import { describe, expect, it } from 'vitest';
import type { ResultEnvelope } from '../../../src/contract/envelopes.js';
import { withMember } from '../../../src/json-members.js';
import { resultJson } from '../../../src/producers/output-records.js';
import { paidJson, readPaid, type PaidOutcome } from '../../../src/requests/idempotency.js';

const result: ResultEnvelope = {
  requestId: 'r-1',
  operation: 'vehicle-async',
  status: 'accepted',
  params: { plate: 'ABC1D23' },
  response: { data: [{ name: 'Maria "da" Silva', nested: { list: [1, null, 'ç'] } }] },
  vendor: { id: 'v', version: '1', httpStatus: 202, timeSpent: 4 },
  attempts: 2,
  receivedAt: '2026-11-28T10:00:00.000Z',
  completedAt: '2026-11-28T10:00:01.000Z',
  requestedAt: '2026-11-28T09:59:59.000Z',
  source: 'onboarding',
  metadata: { case: 'A-17' },
  origin: { topic: 't', partition: 1, offset: '9' },
  searchId: 's-1',
};

describe('outcomes serialised once', () => {
  it('a result whose response is spliced in parses to the same envelope, with every optional member', () => {
    expect(JSON.parse(resultJson(result, JSON.stringify(result.response)))).toEqual(result);
  });

  it('a result without a response (undefined) parses as JSON.stringify would have written it', () => {
    const bare = { ...result, response: undefined };
    expect(JSON.parse(resultJson(bare, undefined))).toEqual(JSON.parse(JSON.stringify(bare)));
  });

  it('a stored outcome whose response is spliced in reads back as the outcome paid', () => {
    const paid: PaidOutcome = {
      paramsHash: 'h',
      operation: 'vehicle-async',
      origin: { topic: 't', partition: 1, offset: '9' },
      outcome: { status: 'accepted', response: result.response, vendor: result.vendor, searchId: 's-1' },
    };
    expect(readPaid(Buffer.from(paidJson(paid, JSON.stringify(paid.outcome.response))))).toEqual(paid);
    expect(readPaid(Buffer.from(paidJson(paid)))).toEqual(paid);
    const older = { paramsHash: null, outcome: { ...paid.outcome, response: [] } };
    expect(readPaid(Buffer.from(paidJson(older)))).toEqual(older);
  });

  it('a member is added to an empty object as to one with members', () => {
    expect(JSON.parse(withMember('{}', 'a"b', '[1]'))).toEqual({ 'a"b': [1] });
    expect(JSON.parse(withMember('{"x":1}', 'y', '{"z":2}'))).toEqual({ x: 1, y: { z: 2 } });
    expect(withMember('{"x":1}', 'y', undefined)).toBe('{"x":1}');
  });
});
