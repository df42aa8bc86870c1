import { AppError, InfrastructureError } from '../errors.js';

/** A job that was still waiting when the limiters closed; safe to retry elsewhere. */
export class LimiterClosedError extends AppError {
  constructor() {
    super('internal', 'limiter closed before the call started', { retryable: true });
  }
}

/** Redis could not be asked for a slot; the call did not start and consumed no quota. */
export class QuotaUnavailableError extends InfrastructureError {
  constructor(cause: unknown) {
    super('shared quota unavailable', { cause });
  }
}

/**
 * Thrown by Slot.confirm: the request would leave too late for its slot; nothing was sent. The
 * limiter runs the call again on a new slot, so it reaches a caller only from inside fn.
 */
export class SlotMissedError extends AppError {
  constructor() {
    super('internal', 'the call would start too late for its slot', { retryable: true });
  }
}

export function abortError(signal: AbortSignal): DOMException {
  return new DOMException('call aborted before it started', { name: 'AbortError', cause: signal.reason });
}
