import { describe, expect, it } from 'vitest';
import { RangeCursors } from '../../../src/audit/cursors.js';

const range = (partition: number, start: number, end: number) => ({ topic: 't', partition, start, end });

describe('range cursors', () => {
  it('empty ranges are done at once', () => {
    const cursors = new RangeCursors([range(0, 5, 5), range(1, 0, 0)]);
    expect(cursors.allDone).toBe(true);
  });

  it('delivers each offset of [start, end) once, whatever the fetches return', () => {
    const cursors = new RangeCursors([range(0, 10, 13)]);
    const seen = [5, 9, 10, 11, 10, 11, 12, 13, 14].filter((o) => cursors.accept('t', 0, o));
    expect(seen).toEqual([10, 11, 12]);
    expect(cursors.allDone).toBe(true);
    expect(cursors.progress).toBe(3);
  });

  it('the client passing a transaction marker at the end moves the cursor past the end', () => {
    const cursors = new RangeCursors([range(0, 0, 4), range(1, 0, 1)]);
    for (const o of [0, 1, 2]) cursors.accept('t', 0, o);
    expect(cursors.isDone('t', 0)).toBe(false);
    cursors.passedTo('t', 0, 4); // offset 3 is the commit marker, never delivered
    expect(cursors.isDone('t', 0)).toBe(true);
    expect(cursors.allDone).toBe(false);
    expect(cursors.progress).toBe(4);
  });

  it('never moves a cursor back', () => {
    const cursors = new RangeCursors([range(0, 0, 10)]);
    for (const o of [0, 1, 2, 3, 4]) cursors.accept('t', 0, o);
    cursors.passedTo('t', 0, 2);
    expect(cursors.positions()).toEqual([{ topic: 't', partition: 0, offset: 5, done: false }]);
  });

  it('a compaction gap inside the range does not stall it', () => {
    const cursors = new RangeCursors([range(0, 0, 10)]);
    expect(cursors.accept('t', 0, 7)).toBe(true);
    expect(cursors.accept('t', 0, 3)).toBe(false);
    expect(cursors.positions()[0]?.offset).toBe(8);
  });
});
