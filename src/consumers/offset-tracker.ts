/**
 * Tracks the messages of one partition between fetch and commit.
 *
 * Messages complete out of order (work runs concurrently beyond the partition count), but the
 * committed offset must only ever be the end of the contiguous completed prefix (the
 * Confluent Parallel Consumer's rule). Outputs of a completed message are held here until the
 * prefix reaches it, so that one transaction carries exactly the outputs of the offsets it
 * commits: a crash can then never leave an output whose input offset is not committed.
 */
export interface TrackedEntry<T> {
  readonly offset: string;
  done: boolean;
  outputs: T[];
}

export interface DrainedPrefix<T> {
  /** The offset to commit: the next one to read. */
  nextOffset: string;
  outputs: T[];
  count: number;
}

export class OffsetTracker<T> {
  /** Taken entries in offset order; those before `head` are drained and cleared. */
  private entries: (TrackedEntry<T> | undefined)[] = [];
  private head = 0;
  private readonly byOffset = new Map<string, TrackedEntry<T>>();

  /** Messages taken and not yet drained (in flight, queued or completed out of order). */
  get size(): number {
    return this.entries.length - this.head;
  }

  take(offset: string): void {
    const entry: TrackedEntry<T> = { offset, done: false, outputs: [] };
    this.entries.push(entry);
    this.byOffset.set(offset, entry);
  }

  has(offset: string): boolean {
    return this.byOffset.has(offset);
  }

  complete(offset: string, outputs: T[]): void {
    const entry = this.byOffset.get(offset);
    if (!entry) throw new Error(`offset ${offset} was not taken`);
    if (entry.done) throw new Error(`offset ${offset} completed twice`);
    entry.done = true;
    entry.outputs = outputs;
  }

  /** Whether the oldest message not yet drained is complete: drain() would return a prefix. */
  hasReadyPrefix(): boolean {
    return this.entries[this.head]?.done === true;
  }

  /** Removes the contiguous completed prefix and returns its outputs in offset order. */
  drain(): DrainedPrefix<T> | undefined {
    const outputs: T[] = [];
    let last: TrackedEntry<T> | undefined;
    let count = 0;
    while (this.head < this.entries.length) {
      const entry = this.entries[this.head];
      if (!entry?.done) break;
      for (const output of entry.outputs) outputs.push(output);
      this.byOffset.delete(entry.offset);
      // Drained: the tracker no longer holds it nor its outputs (the prefix returned does).
      this.entries[this.head] = undefined;
      last = entry;
      this.head += 1;
      count += 1;
    }
    if (!last) return undefined;
    this.compact();
    return { nextOffset: (BigInt(last.offset) + 1n).toString(), outputs, count };
  }

  private compact(): void {
    if (this.head === this.entries.length) {
      this.entries = [];
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.entries.length) {
      // Amortised O(1): shift the array only when the drained head dominates it.
      this.entries.splice(0, this.head);
      this.head = 0;
    }
  }
}
