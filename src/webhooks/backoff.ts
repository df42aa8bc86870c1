/**
 * When to poll a search next. Exponential from VEHICLE_SEARCH_POLL_MS, capped at
 * VEHICLE_SEARCH_POLL_MAX_MS, with ±10 % jitter so searches created together do not poll
 * together; never later than the expiry, so the `expired` event is on time.
 */
export interface PollSchedule {
  baseMs: number;
  maxMs: number;
  expiryMs: number;
}

const JITTER = 0.1;

/** Delay before poll number `polls + 1` (polls already made: 0 for the first). */
export function pollDelay(schedule: PollSchedule, polls: number, random: () => number = Math.random): number {
  const exponential = schedule.baseMs * 2 ** Math.min(polls, 30);
  const capped = Math.min(exponential, schedule.maxMs);
  const jittered = capped * (1 - JITTER + 2 * JITTER * random());
  return Math.max(1, Math.round(jittered));
}

/** Absolute time of the next poll of a search created at `createdAt`. */
export function nextPollAt(
  schedule: PollSchedule,
  search: { createdAt: number; polls: number },
  now: number,
  random?: () => number,
): number {
  return Math.min(now + pollDelay(schedule, search.polls, random), expiresAt(schedule, search));
}

export function expiresAt(schedule: PollSchedule, search: { createdAt: number }): number {
  return search.createdAt + schedule.expiryMs;
}
