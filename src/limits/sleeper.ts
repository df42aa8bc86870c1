import { abortError } from './errors.js';

/** Abortable waits on a clock, all cancellable at once by close(). */
export interface Sleeper {
  /** Resolves once now() >= target (never early: timers may fire before the clock says so). */
  until(target: number, signal?: AbortSignal): Promise<void>;
  /**
   * As until(), and `wake()` ends the wait early: `woken` resolves true at the target, false
   * when woken first. A wait already over ignores `wake()`.
   */
  wakeable(target: number, signal?: AbortSignal): { woken: Promise<boolean>; wake(): void };
  /** Rejects every pending wait, and every later one, with `error`. */
  cancelAll(error: Error): void;
}

export function createSleeper(now: () => number): Sleeper {
  const pending = new Set<(error: Error) => void>();
  let cancelledWith: Error | undefined;

  const wakeable = (target: number, signal?: AbortSignal): { woken: Promise<boolean>; wake(): void } => {
    let wake: () => void = () => undefined;
    const woken = new Promise<boolean>((resolve, reject) => {
      if (cancelledWith !== undefined || signal?.aborted) {
        reject(cancelledWith ?? abortError(signal as AbortSignal));
        return;
      }
      let timer: NodeJS.Timeout | undefined;
      let over = false;
      const finish = (error?: Error, due = true): void => {
        if (over) return;
        over = true;
        clearTimeout(timer);
        pending.delete(finish);
        signal?.removeEventListener('abort', onAbort);
        if (error === undefined) resolve(due);
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
      wake = () => {
        finish(undefined, false);
      };
      pending.add(finish);
      signal?.addEventListener('abort', onAbort, { once: true });
      arm();
    });
    return {
      woken,
      wake: () => {
        wake();
      },
    };
  };

  return {
    async until(target, signal) {
      await wakeable(target, signal).woken;
    },
    wakeable,
    cancelAll(error) {
      cancelledWith = error;
      for (const cancel of [...pending]) cancel(error);
    },
  };
}
