import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
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

  it('count arrivals recorded out of order (answers finish in another order) in their time order', () => {
    const counters = new Counters();
    // Recorded when answered: the call that arrived at 200 ms took longer than the two after it.
    for (const atMs of [1000, 1500, 200])
      counters.recordBilled(Math.floor(atMs / 1000), 'vehicle', undefined, atMs);
    // Windows [200, 1200) and [1000, 2000) each hold two calls; none holds three.
    expect(counters.snapshot().maxInAnySlidingSecond).toBe(2);
  });

  it('match a brute-force count for any arrival order, across the memory bound', () => {
    const bruteForce = (times: number[]): number =>
      Math.max(0, ...times.map((from) => times.filter((t) => t >= from && t < from + 1000).length));
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 5_000 }), { maxLength: 300 }),
        fc.array(fc.integer({ min: 0, max: 400 }), { maxLength: 300 }),
        (arrivals, delays) => {
          const counters = new Counters();
          const answered = arrivals
            .map((at, i) => ({ at, done: at + (delays[i] ?? 0) }))
            .sort((a, b) => a.done - b.done);
          for (const { at } of answered)
            counters.recordBilled(Math.floor(at / 1000), 'vehicle', undefined, at);
          expect(counters.snapshot().maxInAnySlidingSecond).toBe(bruteForce(arrivals));
        },
      ),
    );
    // 60,000 calls over 10 minutes, a burst of 40 in the first second: still seen after the
    // oldest times were folded away to bound memory.
    const counters = new Counters();
    for (let i = 0; i < 40; i += 1) counters.recordBilled(0, 'vehicle', undefined, 500 + i);
    for (let i = 0; i < 60_000; i += 1) counters.recordBilled(0, 'vehicle', undefined, 2_000 + i * 10);
    expect(counters.snapshot().maxInAnySlidingSecond).toBe(100);
    for (let i = 0; i < 150; i += 1) counters.recordBilled(0, 'vehicle', undefined, 700_000);
    expect(counters.snapshot().maxInAnySlidingSecond).toBe(150);
  });

  it('compact the sliding window once per 50,000 calls, not on every call past that', () => {
    const counters = new Counters();
    const sliding = (counters as unknown as { billableSliding: object }).billableSliding;
    const compact = vi.spyOn(Object.getPrototypeOf(sliding) as { compact(): void }, 'compact');
    // 60,000 calls within one minute: none old enough to fold away, so the window keeps them all.
    for (let i = 0; i < 60_000; i += 1) counters.recordBilled(0, 'vehicle', undefined, i);
    expect(compact).toHaveBeenCalledTimes(1);
    expect(counters.snapshot().maxInAnySlidingSecond).toBe(1000);
    compact.mockRestore();
  });
});
