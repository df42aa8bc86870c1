import { backoffDelayMs } from '../retry.js';

/** The settings of `decideRetry`. */
export interface RetrySettings {
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** Total time a request may spend in retries before it is dead-lettered. */
  budgetMs: number;
}

export interface RetryDecision {
  retry: boolean;
  delayMs: number;
}

/**
 * Retry budget of one request: attempts and total time, exponential backoff with full jitter
 * (AWS architecture blog's "full jitter"), and the vendor's Retry-After when it gave one.
 */
export function decideRetry(
  settings: RetrySettings,
  state: { attempts: number; elapsedMs: number; retryAfterMs?: number | undefined },
  random: () => number = Math.random,
): RetryDecision {
  if (state.attempts >= settings.maxAttempts) return { retry: false, delayMs: 0 };
  const jittered = backoffDelayMs(
    { firstDelayMs: settings.baseDelayMs, maxDelayMs: settings.maxDelayMs, jitter: 'full' },
    state.attempts,
    random,
  );
  const delayMs = Math.max(jittered, state.retryAfterMs ?? 0);
  if (state.elapsedMs + delayMs > settings.budgetMs) return { retry: false, delayMs: 0 };
  return { retry: true, delayMs };
}
