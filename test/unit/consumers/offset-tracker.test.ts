import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { OffsetTracker } from '../../../src/consumers/offset-tracker.js';

/** V8's full collection, reachable without starting the test process with --expose-gc. */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as (() => void) | undefined;
  if (gc === undefined) throw new Error('V8 exposed no gc()');
  gc();
}

/**
 * Which of the outputs `use` gave the tracker are still alive after a full collection (only the
 * tracker can hold them), and how many entries it holds then (the tracker itself is alive).
 */
async function keptAfterCollection(
  use: (tracker: OffsetTracker<object>) => WeakRef<object>[],
): Promise<{ kept: boolean[]; size: number }> {
  const tracker = new OffsetTracker<object>();
  const refs = use(tracker);
  // A WeakRef made in a job keeps its target alive until the job ends: collect in a later task.
  await new Promise((resolve) => setImmediate(resolve));
  collectGarbage();
  return { kept: refs.map((ref) => ref.deref() !== undefined), size: tracker.size };
}

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

  it('lets go of what it drained: the prefix holds the outputs until the commit', async () => {
    // Every partition kept up to 2,048 drained entries and their outputs until the commit after
    // its next compaction: at 256 partitions that held most of a 50k backlog's output records.
    const after = await keptAfterCollection((tracker) => {
      const refs: WeakRef<object>[] = [];
      for (let offset = 0; offset < 3; offset += 1) {
        const output = { offset };
        refs.push(new WeakRef(output));
        tracker.take(String(offset));
        tracker.complete(String(offset), [output]);
      }
      tracker.take('3');
      expect(tracker.drain()?.count).toBe(3);
      return refs;
    });
    expect(after).toEqual({ kept: [false, false, false], size: 1 });
  });

  it('keeps the outputs it has not drained', async () => {
    const after = await keptAfterCollection((tracker) => {
      const early = { offset: 0 };
      const late = { offset: 2 };
      for (const offset of ['0', '1', '2']) tracker.take(offset);
      tracker.complete('0', [early]);
      tracker.complete('2', [late]);
      expect(tracker.drain()?.count).toBe(1);
      return [new WeakRef(early), new WeakRef(late)];
    });
    expect(after).toEqual({ kept: [false, true], size: 2 });
  });
});
