import { describe, expect, it } from 'vitest';
import { AUDIT_ERROR_CODES, incompleteRead } from '../../../src/audit/errors.js';
import type { ScanSummary } from '../../../src/audit/scan.js';

function summary(reader: Partial<ScanSummary['reader']>): ScanSummary {
  return {
    topics: ['p.results.vehicle'],
    spanned: 10,
    read: 7,
    matched: 7,
    undecodable: 0,
    stampedOutside: 0,
    reader: { groupId: null, delivered: 7, committedOffsets: 0, unfinished: [], aborted: false, ...reader },
  };
}

describe('an audit read that stopped short', () => {
  it('is an error of its own (exit 6) naming where it stopped, after what was said', () => {
    const error = incompleteRead(
      summary({ unfinished: [{ topic: 'p.results.vehicle', partition: 2, offset: 7 }] }),
      '7 of 7 messages written',
    );
    expect(error?.exitCode).toBe(AUDIT_ERROR_CODES.INCOMPLETE);
    expect(error?.exitCode).toBe(6);
    expect(error?.message).toBe(
      'incomplete: 7 of 7 messages written; stopped short on p.results.vehicle/2 at 7',
    );
  });

  it('is no error when every range was read to its end, or the user interrupted it', () => {
    expect(incompleteRead(summary({}), 'done')).toBeUndefined();
    expect(
      incompleteRead(
        summary({ aborted: true, unfinished: [{ topic: 'p.results.vehicle', partition: 0, offset: 3 }] }),
        'interrupted',
      ),
    ).toBeUndefined();
  });
});
