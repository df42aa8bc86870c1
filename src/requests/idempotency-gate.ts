import type { BeforeStart } from '../limits/types.js';
import { DeferredStart } from './deferred-start.js';
import type { Claim, Reservation } from './idempotency.js';

/**
 * One request's idempotency claim as the gate before its vendor call. The claim is sent when
 * the gate is begun: by the limiter, as it asks Redis for the call's slot (one write for both),
 * or by the call before anything else waits on it. The gate opens (`done` resolves) when the
 * claim is a reservation held here; it stays shut when the outcome is paid already or a copy
 * elsewhere holds the reservation, and `answer` then says which. The limiter sees only its
 * BeforeStart face and knows nothing of idempotency.
 */
export class IdempotencyGate implements BeforeStart {
  /** The reservation held here; rejects when the claim answered anything else. */
  readonly done: Promise<Reservation>;
  private readonly claim: DeferredStart<Claim>;

  private constructor(claim: () => Promise<Claim>) {
    this.claim = new DeferredStart(claim);
    this.done = this.claim.promise.then((claimed) =>
      claimed && 'reservation' in claimed ? claimed.reservation : Promise.reject(NOT_RESERVED),
    );
    // Awaited by whoever needs it; a gate that stays shut is no unhandled rejection.
    this.done.catch(() => undefined);
  }

  /** A gate whose claim is sent only once it is begun. */
  static claiming(claim: () => Promise<Claim>): IdempotencyGate {
    return new IdempotencyGate(claim);
  }

  /** A gate open already: the reservation is held (claimed after a copy elsewhere gave up). */
  static holding(reservation: Reservation): IdempotencyGate {
    const gate = new IdempotencyGate(() => Promise.resolve({ reservation }));
    gate.begin();
    return gate;
  }

  /** Sends the claim, once. */
  begin = (): void => {
    void this.claim.start();
  };

  /** What the claim answered (sending it if it was not). */
  answer(): Promise<Claim> {
    return this.claim.start();
  }

  /**
   * Lets go of a reservation held here that will not be paid for (the call failed or was
   * abandoned). Waits for a claim already sent; one not sent yet may still be (a limiter job
   * that wakes after its call gave up asks for its slot) and is let go whenever it answers.
   */
  async release(): Promise<void> {
    const released = this.done.then(
      (held) => held.release(),
      () => undefined,
    );
    if (this.claim.started) await released;
  }
}

const NOT_RESERVED = new Error('requestId not reserved');
