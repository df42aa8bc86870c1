/**
 * Waits on conditions, not on time. A test that waits for the broker, the registry or a
 * service under CPU contention (several suites and stacks on two cores) can see a step take
 * tens of seconds where it takes tens of milliseconds on an idle machine; a fixed sleep or a
 * tight budget then fails a test that is right. `until` polls a condition and gives up only at
 * a ceiling meant to end a hung test, below the integration project's test timeout
 * (vitest.config.ts), with a message naming what it waited for.
 */
import { vi } from 'vitest';

/** Ends only a hung wait: far above any step of a healthy run, below the 300 s test timeout. */
export const HUNG_MS = 100_000;

export interface UntilOptions {
  /** The ceiling; HUNG_MS unless a test's own timeout is shorter. */
  timeoutMs?: number;
  /** How often the condition is checked. */
  intervalMs?: number;
  /** What was seen, for the message when the ceiling is reached. */
  seen?: () => string;
}

/** Resolves to `check`'s first truthy value; throws naming `what` at the ceiling. */
export async function until<T>(
  what: string,
  check: () => T | Promise<T>,
  { timeoutMs = HUNG_MS, intervalMs = 50, seen }: UntilOptions = {},
): Promise<NonNullable<T>> {
  try {
    return (await vi.waitUntil(check, { timeout: timeoutMs, interval: intervalMs })) as NonNullable<T>;
  } catch (error) {
    const suffix = seen ? `; seen: ${seen()}` : '';
    throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${suffix}`, { cause: error });
  }
}
