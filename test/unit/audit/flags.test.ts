import { describe, expect, it } from 'vitest';
import { collect, parseFilter, parseKinds, parseWindow } from '../../../src/audit/flags.js';

describe('audit flags', () => {
  it('collects repeated and comma-separated values', () => {
    expect(collect('b, c', collect('a', undefined))).toEqual(['a', 'b', 'c']);
  });

  it('builds a time window from ISO times with a zone', () => {
    expect(parseWindow({ from: '2026-11-21T10:00:00Z', to: '2026-11-21T13:00:00.5+02:00' })).toEqual({
      kind: 'time',
      from: new Date('2026-11-21T10:00:00Z'),
      to: new Date('2026-11-21T11:00:00.500Z'),
    });
    expect(parseWindow({ from: '2026-11-21' })).toEqual({
      kind: 'time',
      from: new Date('2026-11-21T00:00:00Z'),
    });
    // Same instant written in two zones: an empty window.
    expect(() => parseWindow({ from: '2026-11-21T10:00:00Z', to: '2026-11-21T12:00:00+02:00' })).toThrow(
      /empty/,
    );
  });

  it('refuses times without a zone, and mixing windows with offsets', () => {
    expect(() => parseWindow({ from: '2026-11-21T10:00:00' })).toThrow(
      /--from must be an ISO 8601 time with a zone/,
    );
    expect(() => parseWindow({ to: 'yesterday' })).toThrow(/--to must be/);
    expect(() => parseWindow({ from: '2026-11-21', partition: '1' })).toThrow(/either a time window/);
    expect(() => parseWindow({ fromOffset: '-1' })).toThrow(/--from-offset must be a whole number/);
  });

  it('checks operations, kinds, statuses and error kinds against the contract', () => {
    expect(parseFilter({ operation: ['vehicle'], errorKind: ['timeout'] })).toMatchObject({
      operations: ['vehicle'],
      errorKinds: ['timeout'],
    });
    expect(() => parseFilter({ operation: ['vehicles'] })).toThrow(/--operation vehicles is not one of/);
    expect(() => parseFilter({ status: ['done'] })).toThrow(/--status done/);
    expect(() => parseFilter({ errorKind: ['oops'] })).toThrow(/--error-kind oops/);
    expect(() => parseKinds(['result'])).toThrow(/--kind result/);
  });
});
