import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  createMemoryQuotaStore,
  type Admission,
  type MemoryQuotaStore,
  type QuotaSettings,
  type SlotToken,
} from '../../../src/limits/quota-store.js';

const HOUR = 3_600_000;

function slotOf(admission: Admission): Extract<Admission, { kind: 'slot' }> {
  if (admission.kind !== 'slot') throw new Error(`expected a slot, got ${admission.kind}`);
  return admission;
}

const settings = (
  perWindow: number,
  windowMs: number,
  spacingMs: number,
  burstMs: number,
  burstSpacingMs: number,
): QuotaSettings => ({ perWindow, windowMs, spacingMs, burstMs, burstSpacingMs, spendCapPerHour: undefined });

describe('memory quota store', () => {
  // Issue 41: a call that woke too late gives its slot back. When only the latest slot gave its
  // pace back, each such slot was lost for good once the burst's room was spent: under a
  // backlog the share of the limit fell by the late slots' rate. Giving any slot's pace back
  // must still keep all three rules over the slots used.
  it('keeps the window, the burst spacing and the pace over the slots used, whichever are given back', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 20 }),
        fc.double({ min: 50, max: 2000, noNaN: true }),
        fc.array(fc.tuple(fc.integer({ min: 0, max: 80 }), fc.integer({ min: 0, max: 5 })), {
          minLength: 1,
          maxLength: 80,
        }),
        async (perWindow, windowMs, steps) => {
          const spacingMs = windowMs / perWindow;
          const shape = settings(perWindow, windowMs, spacingMs, windowMs / 10, spacingMs / 4);
          let clock = 0;
          const store = createMemoryQuotaStore(shape, () => clock);
          const held: { start: number; token: SlotToken }[] = [];
          for (const [gap, giveBack] of steps) {
            clock += gap;
            const slot = slotOf(await store.reserve());
            expect(slot.waitMs).toBeGreaterThanOrEqual(0);
            held.push({ start: clock + slot.waitMs, token: slot.token });
            // Now and then, one of the last few slots goes back, due or not (late, aborted).
            if (giveBack > 0 && giveBack <= 3 && held.length > giveBack) {
              const [released] = held.splice(held.length - 1 - giveBack, 1);
              await store.release(released!.token);
            }
          }
          const starts = held.map((slot) => slot.start).sort((a, b) => a - b);
          for (let i = 1; i < starts.length; i++) {
            expect(starts[i]! - starts[i - 1]!).toBeGreaterThanOrEqual(shape.burstSpacingMs - 1e-6);
          }
          for (let i = perWindow; i < starts.length; i++) {
            expect(starts[i]! - starts[i - perWindow]!).toBeGreaterThanOrEqual(windowMs - 1e-6);
          }
          // GCRA: n starts take at least (n - 1) spacings less the burst.
          for (let i = 0; i < starts.length; i++)
            for (let j = i + 1; j < starts.length; j++)
              expect(starts[j]! - starts[i]!).toBeGreaterThanOrEqual(
                (j - i) * spacingMs - shape.burstMs - 1e-6,
              );
        },
      ),
      { numRuns: 200 },
    );
  });

  it('takes back the pace of any slot given back, so a backlog loses no slot to a late start', async () => {
    const shape = settings(100, 1000, 10, 30, 2.5);
    let clock = 0;
    const releasing = createMemoryQuotaStore(shape, () => clock);
    const keeping = createMemoryQuotaStore(shape, () => clock);
    const taken = [];
    for (let i = 0; i < 10; i++) {
      taken.push(slotOf(await releasing.reserve()));
      slotOf(await keeping.reserve());
    }
    expect(taken.map((slot) => slot.waitMs)).toEqual([0, 2.5, 5, 7.5, 10, 20, 30, 40, 50, 60]);
    // The call of the second slot woke too late and gave it back: the slots after it no longer
    // count its pace, so the next calls start one spacing sooner than with it spent.
    clock = 4;
    await releasing.release(taken[1]!.token);
    const next = async (store: MemoryQuotaStore) => [
      slotOf(await store.reserve()).dueAt,
      slotOf(await store.reserve()).dueAt,
    ];
    expect(await next(keeping)).toEqual([70, 80]);
    expect(await next(releasing)).toEqual([62.5, 70]);
  });

  it('lets a burst go at once, spread by the burst spacing, then keeps the pace', async () => {
    const store = createMemoryQuotaStore(settings(100, 1000, 10, 30, 2.5), () => 0);
    const waits: number[] = [];
    for (let i = 0; i < 7; i++) waits.push(slotOf(await store.reserve()).waitMs);
    expect(waits).toEqual([0, 2.5, 5, 7.5, 10, 20, 30]);
  });

  it('never lets a window hold more than its count, whatever the pace allows', async () => {
    const store = createMemoryQuotaStore(settings(4, 1000, 1, 1000, 5), () => 0);
    const waits: number[] = [];
    for (let i = 0; i < 6; i++) waits.push(slotOf(await store.reserve()).waitMs);
    expect(waits).toEqual([0, 5, 10, 15, 1000, 1005]);
  });

  it('forgets a released slot, so the window has room again', async () => {
    const store = createMemoryQuotaStore(settings(2, 1000, 1, 1000, 1), () => 0);
    const first = slotOf(await store.reserve());
    slotOf(await store.reserve());
    await store.release(first.token);
    // The window now holds one slot (1), so the next one is only spaced from it.
    expect(slotOf(await store.reserve()).waitMs).toBe(2);
    expect(slotOf(await store.reserve()).waitMs).toBe(1001);
  });

  it('gives the pace back when the released slot was the latest', async () => {
    const store = createMemoryQuotaStore(settings(100, 1000, 10, 0, 0), () => 0);
    slotOf(await store.reserve());
    const second = slotOf(await store.reserve());
    expect(second.waitMs).toBe(10);
    await store.release(second.token);
    expect(slotOf(await store.reserve()).waitMs).toBe(10);
  });

  // One-instance RSS creep (issue 42): under a limit of a million a second the log kept every
  // start up to perWindow, one number per call, however long ago.
  it('remembers only the starts of the last window, however high the limit', async () => {
    const perWindow = 1_000_000;
    let clock = 0;
    const store = createMemoryQuotaStore(
      settings(perWindow, 1000, 1000 / perWindow, 100, 0.0001),
      () => clock,
    );
    for (let call = 0; call < 5_000; call += 1) {
      clock += 1;
      slotOf(await store.reserve());
    }
    // One start a millisecond: a window holds a thousand of them.
    expect(store.remembered).toBeGreaterThan(0);
    expect(store.remembered).toBeLessThanOrEqual(1_000);
  });

  it('only ever lengthens a backoff', async () => {
    let clock = 1000;
    const store = createMemoryQuotaStore(settings(1000, 1000, 1, 0, 0), () => clock);
    await store.backoff(500);
    await store.backoff(100);
    expect(await store.backoffRemaining()).toBe(500);
    expect(await store.reserve()).toEqual({ kind: 'backoff', waitMs: 500 });
    clock += 500;
    expect((await store.reserve()).kind).toBe('slot');
  });

  it('counts starts per clock hour against the spend cap', async () => {
    let clock = 5 * HOUR + HOUR - 10;
    const store = createMemoryQuotaStore(
      { ...settings(1000, 1000, 1, 0, 0), spendCapPerHour: 2 },
      () => clock,
    );
    expect(slotOf(await store.reserve()).started).toBe(1);
    const second = slotOf(await store.reserve());
    expect(await store.reserve()).toEqual({ kind: 'spend-cap', waitMs: 10, resumeAt: 6 * HOUR, started: 2 });
    await store.release(second.token);
    expect(slotOf(await store.reserve()).started).toBe(2);
    clock = 6 * HOUR;
    expect(slotOf(await store.reserve()).started).toBe(1);
  });
});
