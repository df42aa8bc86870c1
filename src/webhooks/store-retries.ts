import { retry } from '../retry.js';

export interface StoreRetries {
  tries: number;
  /** The wait after the first failure; each next one is twice as long. */
  firstDelayMs: number;
  /** Once aborted, the failure at hand is thrown without another try (and a wait ends at once). */
  signal?: AbortSignal;
  /** Hears each failure that is tried again. */
  onRetry?: (error: unknown, attempt: number) => void;
}

/**
 * A few quick tries of a vehicle search store write whose loss would cost twice (a search paid
 * for and not recorded, an event published and not marked done). The waits double from
 * `firstDelayMs`, without jitter (a handful of writes, not a herd). The last failure is thrown.
 */
export function withStoreRetries<T>(write: () => Promise<T>, options: StoreRetries): Promise<T> {
  const { tries, firstDelayMs, signal, onRetry } = options;
  return retry(write, {
    maxAttempts: tries,
    firstDelayMs,
    maxDelayMs: Infinity,
    jitter: 'none',
    signal,
    onRetry: (error, attempt) => onRetry?.(error, attempt),
  });
}
