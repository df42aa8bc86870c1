import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Gathering } from '../../../src/requests/gathering.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** Records, per answer, the fake time at which it was let go. */
function track(waits: Record<string, Promise<void>>): Record<string, number> {
  const at: Record<string, number> = {};
  for (const [name, wait] of Object.entries(waits)) void wait.then(() => (at[name] = Date.now()));
  return at;
}

describe('Gathering', () => {
  it('lets the answers that arrive while it is open go on together when it closes', async () => {
    const gathering = new Gathering({ share: 0.1, maxMs: 20 });
    const start = Date.now();
    const first = gathering.wait(5_000);
    await vi.advanceTimersByTimeAsync(7);
    const second = gathering.wait(5_000);
    await vi.advanceTimersByTimeAsync(12);
    const at = track({ first, second });
    await vi.advanceTimersByTimeAsync(0);
    expect(at).toEqual({});
    await vi.advanceTimersByTimeAsync(1);
    expect(at).toEqual({ first: start + 20, second: start + 20 });
  });

  it('holds an answer a share of the time its request took, at most maxMs', async () => {
    const gathering = new Gathering({ share: 0.1, maxMs: 20 });
    const start = Date.now();
    const at = track({ quick: gathering.wait(60) });
    await vi.advanceTimersByTimeAsync(5);
    expect(at).toEqual({});
    await vi.advanceTimersByTimeAsync(1);
    expect(at).toEqual({ quick: start + 6 });

    const later = track({ slow: gathering.wait(60_000) });
    await vi.advanceTimersByTimeAsync(20);
    expect(later).toEqual({ slow: start + 26 });
  });

  it('lets an answer go on at once when its hold is under a millisecond', async () => {
    const gathering = new Gathering({ share: 0.1, maxMs: 20 });
    const at = track({ instant: gathering.wait(9) });
    await vi.advanceTimersByTimeAsync(0);
    expect(at).toEqual({ instant: Date.now() });
  });

  it('lets a quick answer join a gathering that closes within its own hold, counted from its arrival', async () => {
    const gathering = new Gathering({ share: 0.1, maxMs: 20 });
    const start = Date.now();
    const at = track({ slow: gathering.wait(60_000) });
    await vi.advanceTimersByTimeAsync(2);
    // Arrives 18 ms before the close: past its own 5 ms hold, so it goes on at once.
    void gathering.wait(50).then(() => (at.early = Date.now()));
    await vi.advanceTimersByTimeAsync(15);
    expect(at).toEqual({ early: start + 2 });
    // Arrives 3 ms before the close: within its own 5 ms hold, so it joins.
    void gathering.wait(50).then(() => (at.late = Date.now()));
    await vi.advanceTimersByTimeAsync(2);
    expect(at).toEqual({ early: start + 2 });
    await vi.advanceTimersByTimeAsync(1);
    expect(at).toEqual({ early: start + 2, slow: start + 20, late: start + 20 });
  });

  it('does not hold a quick answer past its own share to join a longer hold', async () => {
    const gathering = new Gathering({ share: 0.1, maxMs: 20 });
    const start = Date.now();
    const slow = gathering.wait(60_000);
    const quick = gathering.wait(50);
    const at = track({ slow, quick });
    await vi.advanceTimersByTimeAsync(0);
    expect(at).toEqual({ quick: start });
    await vi.advanceTimersByTimeAsync(20);
    expect(at).toEqual({ quick: start, slow: start + 20 });
  });
});
