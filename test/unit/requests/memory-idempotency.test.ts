import { describe, expect, it } from 'vitest';
import { memoryIdempotencyStore, type Claim, type PaidOutcome } from '../../../src/requests/idempotency.js';

const paid = (n: number): PaidOutcome => ({
  paramsHash: `hash-${n}`,
  operation: 'lawsuits-summary',
  outcome: { status: 'ok', response: { n }, vendor: { id: `v-${n}`, httpStatus: 200 } },
});

async function pay(store: ReturnType<typeof memoryIdempotencyStore>, n: number): Promise<void> {
  const claim = await store.claim('lawsuits-summary', `r-${n}`);
  if (!claim || !('reservation' in claim)) throw new Error(`r-${n} was not free to pay`);
  await claim.reservation.complete(paid(n));
}

const kind = (claim: Claim): string => (claim === undefined ? 'held' : 'paid' in claim ? 'paid' : 'free');

describe('the one-instance dedupe store (MEMORY_DEDUPE_MAX_ENTRIES)', () => {
  it('beyond its cap drops the oldest paid outcome first: that request is free to pay again, the newer are answered', async () => {
    const store = memoryIdempotencyStore(3600, 3);
    for (const n of [1, 2, 3, 4]) await pay(store, n);
    expect(kind(await store.claim('lawsuits-summary', 'r-1'))).toBe('free');
    for (const n of [2, 3, 4]) {
      const claim = await store.claim('lawsuits-summary', `r-${n}`);
      expect(claim && 'paid' in claim ? claim.paid : undefined).toEqual(paid(n));
    }
  });

  it('never drops a reservation, however many outcomes are paid beside it', async () => {
    const store = memoryIdempotencyStore(3600, 2);
    const held = await store.claim('lawsuits-summary', 'r-held');
    expect(kind(held)).toBe('free');
    for (const n of [1, 2, 3, 4, 5]) await pay(store, n);
    // A copy of the request being paid for waits, never calls beside it.
    expect(kind(await store.claim('lawsuits-summary', 'r-held'))).toBe('held');
  });

  it('drops an outcome past the dedupe window', async () => {
    let now = 0;
    const store = memoryIdempotencyStore(10, 100, () => now);
    await pay(store, 1);
    now = 9_999;
    expect(kind(await store.claim('lawsuits-summary', 'r-1'))).toBe('paid');
    now = 10_000;
    expect(kind(await store.claim('lawsuits-summary', 'r-1'))).toBe('free');
  });

  it('refuses a cap that holds nothing', () => {
    expect(() => memoryIdempotencyStore(3600, 0)).toThrow(/at least one/);
  });
});
