import { describe, expect, it } from 'vitest';
import { failures, markdownTable, warnings, type ScenarioResult } from '../../../chaos/report.js';
import { requestIdOf } from '../../../chaos/traffic.js';

function result(overrides: Partial<ScenarioResult>): ScenarioResult {
  return {
    scenario: 'broker',
    description: 'd',
    requests: 10,
    messagesPublished: 10,
    lost: 0,
    duplicateOutcomes: 0,
    deadLettered: 0,
    misframed: 0,
    extraBillableCalls: 0,
    kills: 1,
    unexpectedExits: 0,
    recoveryMs: 1500,
    drainMs: 2000,
    durationMs: 9000,
    lostSample: [],
    duplicateSample: [],
    ...overrides,
  };
}

describe('fault suite report', () => {
  it('reads the requestId of plain and framed values, and nothing from garbage', () => {
    const json = Buffer.from(JSON.stringify({ requestId: 'r-1', params: {} }));
    const framed = Buffer.concat([Buffer.from([0, 0, 0, 0, 7]), json]);
    expect(requestIdOf(json)).toBe('r-1');
    expect(requestIdOf(framed)).toBe('r-1');
    expect(requestIdOf(Buffer.from([0, 1, 2, 3, 4, 5, 6]))).toBeUndefined();
    expect(requestIdOf(Buffer.from('{"requestId":3}'))).toBeUndefined();
    expect(requestIdOf(null)).toBeUndefined();
  });

  it('fails a run only on lost requests, duplicate outcomes or a scenario that did not finish', () => {
    expect(failures([result({ extraBillableCalls: 4, deadLettered: 3 })])).toEqual([]);
    const failed = failures([
      result({ scenario: 'sigkill', lost: 2, lostSample: ['sigkill-1', 'sigkill-9'] }),
      result({ scenario: 'redis', duplicateOutcomes: 1, duplicateSample: ['redis-4×2'] }),
      result({ scenario: 'registry', error: 'boom' }),
    ]);
    expect(failed).toEqual([
      'sigkill: 2 requests lost (e.g. sigkill-1, sigkill-9)',
      'redis: 1 requests with duplicate outcomes (e.g. redis-4×2)',
      'registry: did not run to the end: boom',
    ]);
    expect(warnings([result({ deadLettered: 3, misframed: 5 })])).toHaveLength(2);
  });

  it('prints one markdown row per scenario', () => {
    const table = markdownTable([result({ recoveryMs: null }), result({ scenario: 'redis', error: 'a|b' })]);
    const lines = table.split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[2]).toContain('| never |');
    expect(lines[3]).toBe('| redis | failed to run: a/b |');
  });
});
