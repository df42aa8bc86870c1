import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { OffsetTracker } from '../../../src/consumers/offset-tracker.js';

describe('OffsetTracker', () => {
  it('commits only the contiguous prefix when a message is slow', () => {
    const tracker = new OffsetTracker<string>();
    for (const offset of ['10', '11', '12']) tracker.take(offset);
    tracker.complete('11', ['b']);
    tracker.complete('12', ['c']);
    expect(tracker.drain()).toBeUndefined();
    tracker.complete('10', ['a']);
    expect(tracker.drain()).toEqual({ nextOffset: '13', outputs: ['a', 'b', 'c'], count: 3 });
    expect(tracker.size).toBe(0);
  });

  it('keeps outputs of later completions until the prefix reaches them', () => {
    const tracker = new OffsetTracker<string>();
    for (const o of ['0', '1', '2', '3']) tracker.take(o);
    tracker.complete('0', ['x']);
    tracker.complete('2', ['z']);
    expect(tracker.drain()).toEqual({ nextOffset: '1', outputs: ['x'], count: 1 });
    expect(tracker.size).toBe(3);
    tracker.complete('1', ['y']);
    expect(tracker.drain()).toEqual({ nextOffset: '3', outputs: ['y', 'z'], count: 2 });
  });

  it('handles gaps in offsets (compaction, transaction markers)', () => {
    const tracker = new OffsetTracker<number>();
    tracker.take('5');
    tracker.take('9');
    tracker.complete('9', [9]);
    tracker.complete('5', [5]);
    expect(tracker.drain()?.nextOffset).toBe('10');
  });

  it('refuses to complete an offset twice or one never taken', () => {
    const tracker = new OffsetTracker<number>();
    tracker.take('1');
    tracker.complete('1', []);
    expect(() => {
      tracker.complete('1', []);
    }).toThrow(/twice/);
    expect(() => {
      tracker.complete('2', []);
    }).toThrow(/not taken/);
  });

  it('never commits past an incomplete offset, whatever the completion order', () => {
    fc.assert(
      fc.property(
        fc
          .integer({ min: 1, max: 60 })
          .chain((n) =>
            fc.tuple(
              fc.constant(n),
              fc.shuffledSubarray([...Array(n).keys()], { minLength: 0, maxLength: n }),
            ),
          ),
        ([n, completed]) => {
          const tracker = new OffsetTracker<number>();
          for (let i = 0; i < n; i += 1) tracker.take(String(i));
          for (const i of completed) tracker.complete(String(i), [i]);
          const drained = tracker.drain();
          const done = new Set(completed);
          let prefix = 0;
          while (done.has(prefix)) prefix += 1;
          if (prefix === 0) expect(drained).toBeUndefined();
          else {
            expect(drained?.nextOffset).toBe(String(prefix));
            expect(drained?.outputs).toEqual([...Array(prefix).keys()]);
          }
          expect(tracker.size).toBe(n - prefix);
        },
      ),
    );
  });
});
