import { afterEach, describe, expect, it, vi } from 'vitest';
import { callDeadline } from '../../../src/vendor-api/call-deadline.js';

describe('callDeadline', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('aborts with a TimeoutError once the deadline passes, and says it timed out', () => {
    vi.useFakeTimers();
    const deadline = callDeadline(undefined, 1_000);
    vi.advanceTimersByTime(999);
    expect(deadline.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(deadline.signal.aborted).toBe(true);
    expect((deadline.signal.reason as DOMException).name).toBe('TimeoutError');
    expect(deadline.timedOut()).toBe(true);
  });

  it("follows the caller's signal, which is not a timeout", () => {
    const caller = new AbortController();
    const deadline = callDeadline(caller.signal, 60_000);
    const reason = new Error('shutdown');
    caller.abort(reason);
    expect(deadline.signal.reason).toBe(reason);
    expect(deadline.timedOut()).toBe(false);
    deadline.done();
  });

  it('starts aborted when the caller already is', () => {
    const caller = new AbortController();
    caller.abort(new Error('revoked'));
    const deadline = callDeadline(caller.signal, 60_000);
    expect(deadline.signal.aborted).toBe(true);
    deadline.done();
  });

  it('once done, neither the timer nor the caller aborts it', () => {
    vi.useFakeTimers();
    const caller = new AbortController();
    const deadline = callDeadline(caller.signal, 1_000);
    deadline.done();
    vi.advanceTimersByTime(5_000);
    caller.abort(new Error('late'));
    expect(deadline.signal.aborted).toBe(false);
  });
});
