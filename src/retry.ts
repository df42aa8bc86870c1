/**
 * Tries an infrastructure operation (Redis, the schema registry, the broker) again after
 * waits that grow: `firstDelayMs`, doubled (or times `factor`) at each failure, capped at
 * `maxDelayMs`, with jitter so that the callers that failed together do not come back together.
 * It gives up, throwing the last failure, when `retryable` says no, when `maxAttempts` tries
 * have failed, or when the next wait would end past `budgetMs` from the first try. An abort of
 * `signal` ends a wait at once with the signal's reason; a signal aborted before a wait makes
 * the failure at hand final.
 *
 * Hand-written rather than p-retry or exponential-backoff: p-retry's jitter multiplies the
 * delay by 1 to 2 (neither full nor equal jitter), exponential-backoff takes no AbortSignal
 * and no time budget, and neither lets a caller hand in its own sleep (the request pipeline's
 * is a dependency, faked in its tests).
 */
export async function retry<T>(attempt: (tries: number) => Promise<T>, options: RetryOptions): Promise<T> {
  const { signal, maxAttempts = Infinity, budgetMs = Infinity, now = Date.now } = options;
  const sleep = options.sleep ?? abortableSleep;
  const startedAt = now();
  for (let tries = 1; ; tries += 1) {
    try {
      return await attempt(tries);
    } catch (error) {
      if (options.retryable?.(error) === false || tries >= maxAttempts || signal?.aborted === true)
        throw error;
      const delayMs = backoffDelayMs(options, tries, options.random);
      if (now() - startedAt + delayMs > budgetMs) throw error;
      options.onRetry?.(error, tries, delayMs);
      await (signal ? sleep(delayMs, signal) : new Promise((resolve) => setTimeout(resolve, delayMs)));
    }
  }
}

/** How the waits between tries grow. */
export interface Backoff {
  /** The wait after the first failure (its ceiling, with jitter). */
  firstDelayMs: number;
  /** No wait is longer. */
  maxDelayMs: number;
  /** Each wait's ceiling is the previous one's times this (2 unless given; 1 polls at a steady pace). */
  factor?: number;
  /**
   * `full`: anywhere from 0 to the ceiling (AWS architecture blog's "full jitter"); `equal`:
   * from half the ceiling to all of it; `none`: the ceiling.
   */
  jitter: 'full' | 'equal' | 'none';
}

export interface RetryOptions extends Backoff {
  /** Ends a wait at once (revocation, shutdown); once aborted, no further try is made. */
  signal?: AbortSignal | undefined;
  /** Tries in all, the first included (unbounded unless given). */
  maxAttempts?: number;
  /** No wait may end later than this long after the first try began (unbounded unless given). */
  budgetMs?: number;
  /** False for a failure no retry mends: it is thrown at once. */
  retryable?: (error: unknown) => boolean;
  /** Hears each failure that will be tried again, with its number (from 1) and the wait before the next try. */
  onRetry?: (error: unknown, failures: number, delayMs: number) => void;
  /** The wait, when the caller has its own (a faked one in tests); abortableSleep by default. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  now?: () => number;
  random?: () => number;
}

/** The wait after the `failures`-th failure in a row (from 1), jittered as the backoff says. */
export function backoffDelayMs(
  backoff: Backoff,
  failures: number,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(
    backoff.maxDelayMs,
    backoff.firstDelayMs * (backoff.factor ?? 2) ** Math.max(0, failures - 1),
  );
  switch (backoff.jitter) {
    case 'full':
      // Below the ceiling, as random() is below 1.
      return Math.floor(random() * ceiling);
    case 'equal':
      return Math.round(ceiling / 2 + random() * (ceiling / 2));
    case 'none':
      return ceiling;
  }
}

/** Waits ms, or rejects as soon as the signal aborts (shutdown, revocation) with its reason. */
export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(abortReason(signal));
      return;
    }
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(abortReason(signal));
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('aborted');
}
