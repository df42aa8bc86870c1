import { describe, expect, it } from 'vitest';
import { buildFilter, inWindow, operationResolver, requestIdOf } from '../../../src/audit/filters.js';
import { topicNames } from '../../../src/contract/operations.js';
import { record } from './helpers.js';

const topics = topicNames('t');

describe('audit filters', () => {
  it('keeps everything when no criterion is given', () => {
    expect(buildFilter(topics, {})(record({ error: 'bad' }))).toBe(true);
  });

  it('matches any of the values given for one criterion and all criteria together', () => {
    const keep = buildFilter(topics, { statuses: ['ok', 'not_found'], keys: ['ABC1D23'] });
    expect(keep(record({ value: { status: 'ok' } }))).toBe(true);
    expect(keep(record({ value: { status: 'not_found' } }))).toBe(true);
    expect(keep(record({ value: { status: 'accepted' } }))).toBe(false);
    expect(keep(record({ value: { status: 'ok' }, key: Buffer.from('other') }))).toBe(false);
  });

  it('filters dead letters by error kind and results by requestId', () => {
    const byKind = buildFilter(topics, { errorKinds: ['timeout'] });
    expect(byKind(record({ value: { error: { kind: 'timeout' } } }))).toBe(true);
    expect(byKind(record({ value: { error: { kind: 'internal' } } }))).toBe(false);
    expect(byKind(record({ value: { status: 'ok' } }))).toBe(false);
    const byId = buildFilter(topics, { requestIds: ['r-1'] });
    expect(byId(record({ value: { requestId: 'r-1' } }))).toBe(true);
    expect(byId(record({ value: { requestId: 'r-2' } }))).toBe(false);
  });

  it('finds the requestId of an undecodable output in its CloudEvents subject', () => {
    const undecodable = record({ error: 'not JSON', headers: { ce_subject: 'r-9' } });
    expect(requestIdOf(undecodable)).toBe('r-9');
    expect(buildFilter(topics, { requestIds: ['r-9'] })(undecodable)).toBe(true);
  });

  it('takes the operation from the envelope, else from the topic', () => {
    const operationOf = operationResolver(topics);
    expect(operationOf(record({ topic: 't.errors', value: { operation: 'vehicle' } }))).toBe('vehicle');
    expect(operationOf(record({ topic: 't.requests.lawsuits-summary', value: {} }))).toBe('lawsuits-summary');
    expect(operationOf(record({ topic: 't.events.vehicle-search', value: {} }))).toBe('vehicle-async');
    expect(operationOf(record({ topic: 'elsewhere', value: {} }))).toBeUndefined();
    const keep = buildFilter(topics, { operations: ['vehicle'] });
    expect(keep(record({ topic: 't.results.vehicle', error: 'x' }))).toBe(true);
    expect(keep(record({ topic: 't.results.vehicle-async', error: 'x' }))).toBe(false);
  });

  it('time windows include --from and exclude --to', () => {
    const from = new Date('2026-11-21T10:00:00Z');
    const to = new Date('2026-11-21T11:00:00Z');
    const at = (iso: string) => record({ timestamp: Date.parse(iso) });
    const window = { kind: 'time' as const, from, to };
    expect(inWindow(at('2026-11-21T10:00:00Z'), window)).toBe(true);
    expect(inWindow(at('2026-11-21T10:59:59.999Z'), window)).toBe(true);
    expect(inWindow(at('2026-11-21T11:00:00Z'), window)).toBe(false);
    expect(inWindow(at('2026-11-21T09:59:59.999Z'), window)).toBe(false);
    expect(inWindow(at('2020-01-01T00:00:00Z'), { kind: 'offsets' })).toBe(true);
  });
});
