import { describe, expect, it } from 'vitest';
import { verdictOf } from '../../../chaos/run-scenario.js';

describe('one outcome per request message', () => {
  it('finds a copy left unanswered, though its requestId has an outcome', () => {
    expect(verdictOf({ copies: 2, outcomes: 1 }, true)).toMatchObject({ lost: true, duplicated: false });
  });

  it('finds a result and a dead letter for one message as a duplicate', () => {
    expect(verdictOf({ copies: 1, outcomes: 2 }, true)).toMatchObject({ lost: false, duplicated: true });
  });

  it('takes a request acknowledged but never seen on its topic as one message', () => {
    expect(verdictOf({ copies: 0, outcomes: 0 }, true)).toMatchObject({ expected: 1, lost: true });
    expect(verdictOf({ copies: 2, outcomes: 2 }, true)).toMatchObject({ lost: false, duplicated: false });
  });
});
