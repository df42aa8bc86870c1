/**
 * Small LRU of generated records. Generation is deterministic, so caching never changes an
 * answer; it only keeps benchmarks that repeat inputs off the generators.
 */
export class RecordCache {
  private readonly entries = new Map<string, unknown>();

  constructor(private readonly capacity = 2_000) {}

  getOrBuild<T>(key: string, build: () => T): T {
    const hit = this.entries.get(key);
    if (hit !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit as T;
    }
    const value = build();
    this.entries.set(key, value);
    if (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next();
      if (oldest.done !== true) this.entries.delete(oldest.value);
    }
    return value;
  }

  clear(): void {
    this.entries.clear();
  }
}
