import type { PartitionRange } from './window.js';

/**
 * Where reading stands in each partition's range [start, end). The cursor is the next offset
 * to deliver: a message is delivered only at or past it, which keeps a batch fetched before a
 * seek took effect (or fetched again after a rebalance) from showing a message twice.
 */
interface Cursor {
  range: PartitionRange;
  next: number;
}

export class RangeCursors {
  private readonly cursors = new Map<string, Cursor>();
  private unfinishedCount = 0;
  private readSoFar = 0;

  constructor(ranges: readonly PartitionRange[]) {
    for (const range of ranges) {
      this.cursors.set(keyOf(range.topic, range.partition), { range, next: range.start });
      if (range.start < range.end) this.unfinishedCount += 1;
    }
  }

  /** Whether to deliver this message; if so the cursor moves past it. */
  accept(topic: string, partition: number, offset: number): boolean {
    const cursor = this.cursors.get(keyOf(topic, partition));
    if (!cursor || offset < cursor.next || offset >= cursor.range.end) return false;
    this.moveTo(cursor, offset + 1);
    return true;
  }

  /**
   * The client went on to `next` in the partition: what lay below it and was not delivered was
   * transaction markers or aborted messages (never delivered), or past the range. The cursor
   * moves there, so a range ending in a transaction marker still ends.
   */
  passedTo(topic: string, partition: number, next: number): void {
    const cursor = this.cursors.get(keyOf(topic, partition));
    if (cursor) this.moveTo(cursor, next);
  }

  isDone(topic: string, partition: number): boolean {
    const cursor = this.cursors.get(keyOf(topic, partition));
    return cursor === undefined || cursor.next >= cursor.range.end;
  }

  get allDone(): boolean {
    return this.unfinishedCount === 0;
  }

  /** Offsets passed so far, within the ranges (the progress bar's value). */
  get progress(): number {
    return this.readSoFar;
  }

  /** Where each partition still to read should be fetched from. */
  positions(): { topic: string; partition: number; offset: number; done: boolean }[] {
    return [...this.cursors.values()].map(({ range, next }) => ({
      topic: range.topic,
      partition: range.partition,
      offset: next,
      done: next >= range.end,
    }));
  }

  private moveTo(cursor: Cursor, next: number): void {
    if (next <= cursor.next) return;
    const { end } = cursor.range;
    const wasDone = cursor.next >= end;
    this.readSoFar += Math.min(next, end) - Math.min(cursor.next, end);
    cursor.next = next;
    if (!wasDone && next >= end) this.unfinishedCount -= 1;
  }
}

function keyOf(topic: string, partition: number): string {
  return `${topic}\u0000${partition}`;
}
