import { abortError } from './errors.js';

/** Abortable waits on a clock, all cancellable at once by close(). */
export interface Sleeper {
  /** Resolves once now() >= target (never early: timers may fire before the clock says so). */
  until(target: number, signal?: AbortSignal): Promise<void>;
  /** Rejects every pending wait, and every later one, with `error`. */
  cancelAll(error: Error): void;
}

export function createSleeper(now: () => number): Sleeper {
  const pending = new Set<(error: Error) => void>();
  let cancelledWith: Error | undefined;
  return {
    until(target, signal) {
      return new Promise<void>((resolve, reject) => {
        if (cancelledWith !== undefined || signal?.aborted) {
          reject(cancelledWith ?? abortError(signal as AbortSignal));
          return;
        }
        let timer: NodeJS.Timeout | undefined;
        const finish = (error?: Error): void => {
          clearTimeout(timer);
          pending.delete(finish);
          signal?.removeEventListener('abort', onAbort);
          if (error === undefined) resolve();
          else reject(error);
        };
        const onAbort = (): void => {
          if (signal) finish(abortError(signal));
        };
        const arm = (): void => {
          const left = target - now();
          if (left <= 0) finish();
          else timer = setTimeout(arm, Math.ceil(left));
        };
        pending.add(finish);
        signal?.addEventListener('abort', onAbort, { once: true });
        arm();
      });
    },
    cancelAll(error) {
      cancelledWith = error;
      for (const cancel of [...pending]) cancel(error);
    },
  };
}
