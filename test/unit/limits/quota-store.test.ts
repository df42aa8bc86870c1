import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createMemoryQuotaStore, type Admission } from '../../../src/limits/quota-store.js';

const HOUR = 3_600_000;

function slotOf(admission: Admission): Extract<Admission, { kind: 'slot' }> {
  if (admission.kind !== 'slot') throw new Error(`expected a slot, got ${admission.kind}`);
  return admission;
}

const shape = (perWindow: number, windowMs: number) => ({
  perWindow,
  windowMs,
  spacingMs: windowMs / perWindow / 4,
});

describe('memory quota store', () => {
  it('never lets a window hold more than its count, nor two slots closer than the spacing', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 20 }),
        fc.double({ min: 50, max: 2000, noNaN: true }),
        fc.array(fc.integer({ min: 0, max: 80 }), { minLength: 1, maxLength: 80 }),
        async (perWindow, windowMs, gaps) => {
          const spacingMs = windowMs / perWindow / 4;
          let clock = 0;
          const store = createMemoryQuotaStore(
            { ...shape(perWindow, windowMs), spendCapPerHour: undefined },
            () => clock,
          );
          const starts: number[] = [];
          for (const gap of gaps) {
            clock += gap;
            const slot = slotOf(await store.reserve());
            expect(slot.waitMs).toBeGreaterThanOrEqual(0);
            starts.push(clock + slot.waitMs);
          }
          for (let i = 1; i < starts.length; i++) {
            expect(starts[i]! - starts[i - 1]!).toBeGreaterThanOrEqual(spacingMs - 1e-6);
          }
          for (let i = perWindow; i < starts.length; i++) {
            expect(starts[i]! - starts[i - perWindow]!).toBeGreaterThanOrEqual(windowMs - 1e-6);
          }
        },
      ),
      { numRuns: 100 },
    );
  });

  it('lets a burst up to the count go at once, spread by the spacing, and the rest a window later', async () => {
    const store = createMemoryQuotaStore(
      { perWindow: 4, windowMs: 1000, spacingMs: 5, spendCapPerHour: undefined },
      () => 0,
    );
    const waits: number[] = [];
    for (let i = 0; i < 6; i++) waits.push(slotOf(await store.reserve()).waitMs);
    expect(waits).toEqual([0, 5, 10, 15, 1000, 1005]);
  });

  it('forgets a released slot, so the window has room again', async () => {
    const store = createMemoryQuotaStore(
      { perWindow: 2, windowMs: 1000, spacingMs: 1, spendCapPerHour: undefined },
      () => 0,
    );
    const first = slotOf(await store.reserve());
    slotOf(await store.reserve());
    await store.release(first.token);
    // The window now holds one slot (1), so the next one is only spaced from it.
    expect(slotOf(await store.reserve()).waitMs).toBe(2);
    expect(slotOf(await store.reserve()).waitMs).toBe(1001);
  });

  it('only ever lengthens a backoff', async () => {
    let clock = 1000;
    const store = createMemoryQuotaStore({ ...shape(1000, 1000), spendCapPerHour: undefined }, () => clock);
    await store.backoff(500);
    await store.backoff(100);
    expect(await store.backoffRemaining()).toBe(500);
    expect(await store.reserve()).toEqual({ kind: 'backoff', waitMs: 500 });
    clock += 500;
    expect((await store.reserve()).kind).toBe('slot');
  });

  it('counts starts per clock hour against the spend cap', async () => {
    let clock = 5 * HOUR + HOUR - 10;
    const store = createMemoryQuotaStore({ ...shape(1000, 1000), spendCapPerHour: 2 }, () => clock);
    expect(slotOf(await store.reserve()).started).toBe(1);
    const second = slotOf(await store.reserve());
    expect(await store.reserve()).toEqual({ kind: 'spend-cap', waitMs: 10, resumeAt: 6 * HOUR, started: 2 });
    await store.release(second.token);
    expect(slotOf(await store.reserve()).started).toBe(2);
    clock = 6 * HOUR;
    expect(slotOf(await store.reserve()).started).toBe(1);
  });
});
