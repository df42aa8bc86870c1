import { describe, expect, it, vi } from 'vitest';
import type { Claim, Reservation } from '../../../src/requests/idempotency.js';
import { IdempotencyGate } from '../../../src/requests/idempotency-gate.js';

/** A reservation, and how often it was let go. */
function reservation(): Reservation & { released: () => number } {
  let released = 0;
  return {
    complete: () => Promise.resolve(),
    release: () => {
      released += 1;
      return Promise.resolve();
    },
    released: () => released,
  };
}

describe('IdempotencyGate', () => {
  it('sends its claim only once begun, and opens with the reservation', async () => {
    const held = reservation();
    const claim = vi.fn((): Promise<Claim> => Promise.resolve({ reservation: held }));
    const gate = IdempotencyGate.claiming(claim);
    await Promise.resolve();
    expect(claim).not.toHaveBeenCalled();
    gate.begin();
    gate.begin();
    await expect(gate.done).resolves.toBe(held);
    expect(claim).toHaveBeenCalledTimes(1);
  });

  it('stays shut when the outcome is paid already, and its answer says so', async () => {
    const paid: Claim = {
      paid: { paramsHash: null, outcome: { status: 'ok', response: {}, vendor: { httpStatus: 200 } } },
    };
    const gate = IdempotencyGate.claiming(() => Promise.resolve(paid));
    gate.begin();
    await expect(gate.done).rejects.toThrow('not reserved');
    await expect(gate.answer()).resolves.toBe(paid);
  });

  it('lets go of a reservation a sent claim brings, waiting for it', async () => {
    const held = reservation();
    let answer: (claim: Claim) => void = () => undefined;
    const gate = IdempotencyGate.claiming(() => new Promise<Claim>((resolve) => (answer = resolve)));
    gate.begin();
    const releasing = gate.release();
    answer({ reservation: held });
    await releasing;
    expect(held.released()).toBe(1);
  });

  it('does not wait for a claim never sent, and lets it go if it is sent later', async () => {
    const held = reservation();
    const gate = IdempotencyGate.claiming(() => Promise.resolve({ reservation: held }));
    await gate.release();
    expect(held.released()).toBe(0);
    gate.begin();
    await vi.waitFor(() => {
      expect(held.released()).toBe(1);
    });
  });

  it('is open at once when holding a reservation', async () => {
    const held = reservation();
    await expect(IdempotencyGate.holding(held).done).resolves.toBe(held);
  });
});
