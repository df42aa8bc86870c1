import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { exitDeadline } from '../../../src/service/exit-deadline.js';

describe('exitDeadline', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('exits with the code once a stop outlives the deadline, saying so first', () => {
    const seen: string[] = [];
    exitDeadline(15_000, 1, {
      exit: (code) => seen.push(`exit ${code}`),
      onLate: (ms) => seen.push(`late ${ms}`),
    });
    vi.advanceTimersByTime(14_999);
    expect(seen).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(seen).toEqual(['late 15000', 'exit 1']);
  });

  it('exits non-zero when a stop asked for by a signal hangs', () => {
    const codes: number[] = [];
    exitDeadline(100, 0, { exit: (code) => codes.push(code), onLate: () => undefined });
    vi.advanceTimersByTime(100);
    expect(codes).toEqual([1]);
  });

  it('does nothing once cancelled (the stop ended and the process exits by itself)', () => {
    const codes: number[] = [];
    const cancel = exitDeadline(100, 1, { exit: (code) => codes.push(code), onLate: () => undefined });
    cancel();
    vi.advanceTimersByTime(1_000);
    expect(codes).toEqual([]);
  });
});
