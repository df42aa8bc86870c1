import { abortableSleep } from '../retry.js';

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
 * for and not recorded, an event published and not marked done). The last failure is thrown.
 */
export async function withStoreRetries<T>(write: () => Promise<T>, options: StoreRetries): Promise<T> {
  const { tries, firstDelayMs, signal, onRetry } = options;
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (error) {
      if (attempt >= tries || signal?.aborted === true) throw error;
      onRetry?.(error, attempt);
      const delayMs = firstDelayMs * 2 ** (attempt - 1);
      await (signal
        ? abortableSleep(delayMs, signal)
        : new Promise((resolve) => setTimeout(resolve, delayMs)));
    }
  }
}
