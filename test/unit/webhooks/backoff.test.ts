import { describe, expect, it } from 'vitest';
import { nextPollAt, pollDelay } from '../../../src/webhooks/backoff.js';

const schedule = { baseMs: 1_000, maxMs: 10_000, expiryMs: 60_000 };
const middle = (): number => 0.5;

describe('poll backoff', () => {
  it('doubles from the base and stops at the cap', () => {
    const delays = [0, 1, 2, 3, 4, 5].map((polls) => pollDelay(schedule, polls, middle));
    expect(delays).toEqual([1_000, 2_000, 4_000, 8_000, 10_000, 10_000]);
  });

  it('jitters by at most 10 % either way', () => {
    expect(pollDelay(schedule, 0, () => 0)).toBe(900);
    expect(pollDelay(schedule, 0, () => 1)).toBe(1_100);
  });

  it('never schedules past the expiry, so the expired event is on time', () => {
    const search = { createdAt: 0, polls: 5 };
    expect(nextPollAt(schedule, search, 55_000, middle)).toBe(60_000);
    expect(nextPollAt(schedule, search, 70_000, middle)).toBe(60_000);
    expect(nextPollAt(schedule, { createdAt: 0, polls: 0 }, 0, middle)).toBe(1_000);
  });

  it('does not overflow on very many polls', () => {
    expect(pollDelay(schedule, 5_000, middle)).toBe(10_000);
  });
});
