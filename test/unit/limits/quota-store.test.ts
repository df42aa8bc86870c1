import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createMemoryQuotaStore, type Admission } from '../../../src/limits/quota-store.js';

const HOUR = 3_600_000;

function slotOf(admission: Admission): Extract<Admission, { kind: 'slot' }> {
  if (admission.kind !== 'slot') throw new Error(`expected a slot, got ${admission.kind}`);
  return admission;
}

describe('memory quota store', () => {
  it('hands out slots one spacing apart, whenever they are asked for', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.double({ min: 0.5, max: 500, noNaN: true }),
        fc.array(fc.integer({ min: 0, max: 50 }), { minLength: 1, maxLength: 60 }),
        async (ratePerSecond, gaps) => {
          const spacingMs = 1000 / ratePerSecond;
          let clock = 0;
          const store = createMemoryQuotaStore({ spacingMs, spendCapPerHour: undefined }, () => clock);
          const starts: number[] = [];
          for (const gap of gaps) {
            clock += gap;
            starts.push(clock + slotOf(await store.reserve()).waitMs);
          }
          for (let i = 1; i < starts.length; i++) {
            expect(starts[i]! - starts[i - 1]!).toBeGreaterThanOrEqual(spacingMs - 1e-6);
            expect(starts[i]).toBeGreaterThanOrEqual(starts[i - 1]!);
          }
        },
      ),
      { numRuns: 50 },
    );
  });

  it('takes a released slot back only when it is the latest one', async () => {
    const store = createMemoryQuotaStore({ spacingMs: 100, spendCapPerHour: undefined }, () => 0);
    const first = slotOf(await store.reserve());
    slotOf(await store.reserve());
    // Reissuing slot 0 while slot 100 is taken would be harmless here, but in general later
    // slots are already spaced from it: an earlier slot is lost, never handed out twice.
    await store.release(first.token);
    const third = slotOf(await store.reserve());
    expect(third.waitMs).toBe(200);
    await store.release(third.token);
    expect(slotOf(await store.reserve()).waitMs).toBe(200);
  });

  it('only ever lengthens a backoff', async () => {
    let clock = 1000;
    const store = createMemoryQuotaStore({ spacingMs: 1, spendCapPerHour: undefined }, () => clock);
    await store.backoff(500);
    await store.backoff(100);
    expect(await store.backoffRemaining()).toBe(500);
    expect(await store.reserve()).toEqual({ kind: 'backoff', waitMs: 500 });
    clock += 500;
    expect((await store.reserve()).kind).toBe('slot');
  });

  it('counts starts per clock hour against the spend cap', async () => {
    let clock = 5 * HOUR + HOUR - 10;
    const store = createMemoryQuotaStore({ spacingMs: 1, spendCapPerHour: 2 }, () => clock);
    expect(slotOf(await store.reserve()).started).toBe(1);
    const second = slotOf(await store.reserve());
    expect(await store.reserve()).toEqual({ kind: 'spend-cap', waitMs: 10, resumeAt: 6 * HOUR, started: 2 });
    await store.release(second.token);
    expect(slotOf(await store.reserve()).started).toBe(2);
    clock = 6 * HOUR;
    expect(slotOf(await store.reserve()).started).toBe(1);
  });
});
