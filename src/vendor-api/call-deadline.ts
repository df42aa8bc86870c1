/**
 * One vendor call's signal: aborted by the caller's signal or at the deadline, whichever comes
 * first. `AbortSignal.any([caller, AbortSignal.timeout(ms)])` does the same, but through weak
 * references and a finalization registry per call, which cost more CPU than the call's own
 * client work; one controller, one timer and one listener, all let go in `done`, do not.
 */
export interface CallDeadline {
  readonly signal: AbortSignal;
  /** True once the deadline, not the caller, aborted the call. */
  timedOut(): boolean;
  /** The call ended: the timer and the listener on the caller's signal go. */
  done(): void;
}

export function callDeadline(caller: AbortSignal | undefined, timeoutMs: number): CallDeadline {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
  }, timeoutMs);
  // Like AbortSignal.timeout: a pending call's deadline alone does not keep the process alive.
  timer.unref();
  const onAbort = (): void => {
    controller.abort(caller?.reason);
  };
  if (caller?.aborted) onAbort();
  else caller?.addEventListener('abort', onAbort, { once: true });
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    done: () => {
      clearTimeout(timer);
      caller?.removeEventListener('abort', onAbort);
    },
  };
}
