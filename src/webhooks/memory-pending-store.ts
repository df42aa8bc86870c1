import type { PendingSearch, PendingStore } from './pending-store.js';

/**
 * One instance only (no REDIS_URL): pending searches live in this process and are lost on a
 * restart, so their final events are too. Meant for local runs and tests, not production.
 */
/** Done markers kept at most; the oldest go first. */
const MAX_DONE = 100_000;

export function memoryPendingStore(now: () => number = Date.now): PendingStore {
  const searches = new Map<string, { search: PendingSearch; dueAt: number }>();
  const claims = new Map<string, { owner: string; until: number }>();
  const fetchGate = new Map<string, number>();
  const done = new Map<string, { searchId: string; until: number }>();
  return {
    add(search, dueAt) {
      searches.set(search.requestId, { search: { ...search }, dueAt });
      return Promise.resolve();
    },
    get(requestId) {
      const entry = searches.get(requestId);
      return Promise.resolve(entry ? { ...entry.search } : undefined);
    },
    takeDue(at, limit, leaseMs) {
      const taken = [...searches.values()]
        .filter((entry) => entry.dueAt <= at)
        .sort((a, b) => a.dueAt - b.dueAt)
        .slice(0, limit);
      for (const entry of taken) entry.dueAt = at + leaseMs;
      return Promise.resolve(taken.map((entry) => entry.search.requestId));
    },
    reschedule(search, dueAt) {
      const entry = searches.get(search.requestId);
      if (entry?.search.searchId === search.searchId) {
        searches.set(search.requestId, { search: { ...search }, dueAt });
      }
      return Promise.resolve();
    },
    claim(requestId, owner, ttlMs) {
      const held = claims.get(requestId);
      if (held && held.until > now()) return Promise.resolve(false);
      claims.set(requestId, { owner, until: now() + ttlMs });
      return Promise.resolve(true);
    },
    admitFetch(requestId, intervalMs) {
      const until = fetchGate.get(requestId);
      if (until !== undefined && until > now()) return Promise.resolve(false);
      fetchGate.set(requestId, now() + intervalMs);
      if (fetchGate.size > MAX_DONE) {
        const oldest = fetchGate.keys().next();
        if (oldest.done !== true) fetchGate.delete(oldest.value);
      }
      return Promise.resolve(true);
    },
    release(requestId, owner) {
      if (claims.get(requestId)?.owner === owner) claims.delete(requestId);
      return Promise.resolve();
    },
    finish(requestId, searchId, doneTtlMs) {
      done.delete(requestId);
      done.set(requestId, { searchId, until: now() + doneTtlMs });
      if (done.size > MAX_DONE) {
        const oldest = done.keys().next();
        if (oldest.done !== true) done.delete(oldest.value);
      }
      if (searches.get(requestId)?.search.searchId === searchId) searches.delete(requestId);
      return Promise.resolve();
    },
    doneSearch(requestId) {
      const entry = done.get(requestId);
      if (entry && entry.until <= now()) done.delete(requestId);
      return Promise.resolve(entry && entry.until > now() ? entry.searchId : undefined);
    },
    count: () => Promise.resolve(searches.size),
    close: () => Promise.resolve(),
  };
}
