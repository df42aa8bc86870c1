import type { PendingSearch, PendingStore } from './pending-store.js';

/** Done markers and fetch gates kept at most; the oldest go first. */
const MAX_DONE = 100_000;

/**
 * One instance only (no REDIS_URL): pending searches live in this process and are lost on a
 * restart, so their final events are too. Meant for local runs and tests, not production.
 */
export function memoryPendingStore(now: () => number = Date.now): PendingStore {
  return new MemoryPendingStore(now);
}

class MemoryPendingStore implements PendingStore {
  readonly #searches = new Map<string, { search: PendingSearch; dueAt: number }>();
  readonly #claims = new Map<string, { owner: string; until: number }>();
  readonly #fetchGate = new Map<string, number>();
  readonly #done = new Map<string, { searchId: string; until: number }>();

  constructor(private readonly now: () => number) {}

  add(search: PendingSearch, dueAt: number): Promise<void> {
    this.#searches.set(search.requestId, { search: { ...search }, dueAt });
    return Promise.resolve();
  }

  get(requestId: string): Promise<PendingSearch | undefined> {
    const entry = this.#searches.get(requestId);
    return Promise.resolve(entry ? { ...entry.search } : undefined);
  }

  takeDue(at: number, limit: number, leaseMs: number): Promise<string[]> {
    const taken = [...this.#searches.values()]
      .filter((entry) => entry.dueAt <= at)
      .sort((a, b) => a.dueAt - b.dueAt)
      .slice(0, limit);
    for (const entry of taken) entry.dueAt = at + leaseMs;
    return Promise.resolve(taken.map((entry) => entry.search.requestId));
  }

  reschedule(search: PendingSearch, dueAt: number): Promise<void> {
    const entry = this.#searches.get(search.requestId);
    if (entry?.search.searchId === search.searchId) {
      this.#searches.set(search.requestId, { search: { ...search }, dueAt });
    }
    return Promise.resolve();
  }

  claim(requestId: string, owner: string, ttlMs: number): Promise<boolean> {
    const held = this.#claims.get(requestId);
    if (held && held.until > this.now()) return Promise.resolve(false);
    this.#claims.set(requestId, { owner, until: this.now() + ttlMs });
    return Promise.resolve(true);
  }

  admitFetch(requestId: string, intervalMs: number): Promise<boolean> {
    const until = this.#fetchGate.get(requestId);
    if (until !== undefined && until > this.now()) return Promise.resolve(false);
    this.#fetchGate.set(requestId, this.now() + intervalMs);
    dropOldestBeyond(this.#fetchGate, MAX_DONE);
    return Promise.resolve(true);
  }

  extend(requestId: string, owner: string, ttlMs: number): Promise<boolean> {
    const held = this.#claims.get(requestId);
    if (held?.owner !== owner || held.until <= this.now()) return Promise.resolve(false);
    held.until = this.now() + ttlMs;
    return Promise.resolve(true);
  }

  release(requestId: string, owner: string): Promise<void> {
    if (this.#claims.get(requestId)?.owner === owner) this.#claims.delete(requestId);
    return Promise.resolve();
  }

  finish(requestId: string, searchId: string, doneTtlMs: number): Promise<void> {
    this.#done.delete(requestId);
    this.#done.set(requestId, { searchId, until: this.now() + doneTtlMs });
    dropOldestBeyond(this.#done, MAX_DONE);
    if (this.#searches.get(requestId)?.search.searchId === searchId) this.#searches.delete(requestId);
    return Promise.resolve();
  }

  doneSearch(requestId: string): Promise<string | undefined> {
    const entry = this.#done.get(requestId);
    if (entry && entry.until <= this.now()) this.#done.delete(requestId);
    return Promise.resolve(entry && entry.until > this.now() ? entry.searchId : undefined);
  }

  nextDue(): Promise<number | undefined> {
    let earliest: number | undefined;
    for (const { dueAt } of this.#searches.values()) earliest = Math.min(earliest ?? dueAt, dueAt);
    return Promise.resolve(earliest);
  }

  count(): Promise<number> {
    return Promise.resolve(this.#searches.size);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** A Map iterates in insertion order: its first key is the oldest. */
function dropOldestBeyond(map: Map<string, unknown>, max: number): void {
  if (map.size <= max) return;
  const oldest = map.keys().next();
  if (oldest.done !== true) map.delete(oldest.value);
}
