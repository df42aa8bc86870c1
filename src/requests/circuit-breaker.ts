import { EventEmitter } from 'node:events';

/**
 * A per-operation circuit breaker. A vendor outage (many consecutive retryable failures)
 * opens it: the runtime pauses the operation's topics instead of draining them into the
 * errors topic, and requests in flight wait instead of spending their retry budget. After
 * the cool-down one probe call is let through (half-open); its success closes the breaker.
 * A half-open breaker with no call waiting says so ('half-open', needsProbe()): the runtime
 * then lets a paused partition hand over one request to probe with, so an operation resumes
 * by itself once the vendor recovers even when every request in flight has given up.
 */
export type BreakerState = 'closed' | 'open' | 'half-open';

export interface BreakerSettings {
  failureThreshold: number;
  cooldownMs: number;
}

export interface BreakerEvents {
  /** Closed → open. */
  open: [];
  close: [];
  /** The cool-down ended: the next call is the probe. */
  'half-open': [];
  /** The probe failed: open again for another cool-down. */
  reopen: [];
}

export class CircuitBreaker extends EventEmitter<BreakerEvents> {
  private stateValue: BreakerState = 'closed';
  private consecutiveFailures = 0;
  private openedAt = 0;
  private probeInFlight = false;
  private waiters: (() => void)[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly settings: BreakerSettings,
    private readonly now: () => number = Date.now,
  ) {
    super();
  }

  get state(): BreakerState {
    return this.stateValue;
  }

  /**
   * Resolves when a call may start: at once when closed; for one caller (the probe) after the
   * cool-down; for the others when the probe succeeded. Resolves true for the probe, which
   * alone may `release()` it. Rejects when `signal` aborts.
   */
  async acquire(signal?: AbortSignal): Promise<boolean> {
    for (;;) {
      signal?.throwIfAborted();
      if (this.stateValue === 'closed') return false;
      if (this.stateValue === 'half-open' && !this.probeInFlight) {
        this.probeInFlight = true;
        return true;
      }
      await this.waitForChange(signal);
    }
  }

  recordSuccess(): void {
    this.consecutiveFailures = 0;
    this.probeInFlight = false;
    if (this.stateValue !== 'closed') {
      this.stateValue = 'closed';
      this.emit('close');
      this.wake();
    }
  }

  /** A retryable failure (5xx, 429, network, timeout). Other failures do not count. */
  recordFailure(): void {
    this.consecutiveFailures += 1;
    const wasProbe = this.probeInFlight;
    this.probeInFlight = false;
    if (this.stateValue === 'half-open' && wasProbe) {
      this.open();
      this.emit('reopen');
    } else if (this.stateValue === 'closed' && this.consecutiveFailures >= this.settings.failureThreshold) {
      this.open();
      this.emit('open');
    }
  }

  /** The probe's call ended without telling anything about the vendor (aborted): free the probe. */
  release(): void {
    if (this.probeInFlight) {
      this.probeInFlight = false;
      this.wake();
    }
  }

  /** Half-open with no probe under way: nothing in flight is going to probe. */
  needsProbe(): boolean {
    return this.stateValue === 'half-open' && !this.probeInFlight;
  }

  close(): void {
    clearTimeout(this.timer);
    this.wake();
  }

  private open(): void {
    this.stateValue = 'open';
    this.openedAt = this.now();
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.stateValue = 'half-open';
      this.wake();
      this.emit('half-open');
    }, this.settings.cooldownMs);
    this.timer.unref();
  }

  private waitForChange(signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        reject(signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      });
    });
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }

  /** Milliseconds since the breaker last opened (for metrics). */
  get openForMs(): number {
    return this.stateValue === 'closed' ? 0 : this.now() - this.openedAt;
  }
}
