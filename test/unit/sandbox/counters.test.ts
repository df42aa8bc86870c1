import { describe, expect, it } from 'vitest';
import { Counters } from '../../../src/sandbox/counters.js';

describe('sandbox counters', () => {
  it('see a burst straddling two aligned seconds in the sliding one-second maximum', () => {
    const counters = new Counters();
    for (const atMs of [10_900, 10_950, 11_000, 11_050, 11_100]) {
      counters.recordBilled(Math.floor(atMs / 1000), 'vehicle', undefined, atMs);
    }
    const snapshot = counters.snapshot();
    expect(snapshot.maxInOneSecond).toBe(3);
    expect(snapshot.maxInAnySlidingSecond).toBe(5);
  });

  it('drop calls older than one second from the sliding window', () => {
    const counters = new Counters();
    for (const atMs of [0, 400, 1000, 1400, 2000, 2400])
      counters.recordBilled(Math.floor(atMs / 1000), 'vehicle', undefined, atMs);
    expect(counters.snapshot().maxInAnySlidingSecond).toBe(2);
    counters.reset();
    expect(counters.snapshot().maxInAnySlidingSecond).toBe(0);
  });
});
