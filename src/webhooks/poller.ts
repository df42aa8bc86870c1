import type { Logger } from 'pino';
import type { Settlement } from './completion.js';
import type { PendingStore } from './pending-store.js';

/** What `createPoller` depends on. */
export interface PollerDeps {
  store: PendingStore;
  settle(requestId: string, signal: AbortSignal): Promise<Settlement>;
  /** Least pause between scans that took less than a batch: a scan a second at most. */
  intervalMs: number;
  /** Longest pause between scans (see above). */
  idleMs: number;
  /** Searches taken per scan. */
  batchSize: number;
  /** How long a taken search is hidden from other scans (the claim TTL). */
  leaseMs: number;
  concurrency: number;
  now(): number;
  logger: Logger;
}

export interface Poller {
  start(): void;
  stop(): Promise<void>;
  /** One scan; resolves to the number of searches taken (tests drive it directly). */
  scan(signal: AbortSignal): Promise<number>;
  /** A search of this process is due at `at`: the loop scans by then. */
  dueAt(at: number): void;
}

/**
 * One loop per replica: takes the searches whose next poll is due and settles each under its
 * claim, so replicas share the work without polling one search twice at once. It is the
 * safety net of the webhook (delivery is unspecified: vendor-api.md, "Events"), the only path
 * for searches created without one, and the clock of the expiry.
 *
 * Between scans it sleeps until the earliest search is due, not a fixed interval: a scan a
 * second was an idle service's only Redis traffic and a wakeup every second. What this
 * process records or reschedules wakes it through dueAt() (wakingStore); what another replica
 * writes, that replica's own poller takes. `idleMs` bounds the sleep, and so how late a
 * search is seen that a replica wrote and then died before taking it.
 */
export function createPoller(deps: PollerDeps): Poller {
  let abort: AbortController | undefined;
  let loop: Promise<void> | undefined;

  const scan = async (signal: AbortSignal): Promise<number> => {
    const takenAt = deps.now();
    const ids = await deps.store.takeDue(takenAt, deps.batchSize, deps.leaseMs);
    await forEachLimited(ids, deps.concurrency, async (requestId) => {
      if (signal.aborted) return;
      // Its lease ran out while it waited its turn (a slow vendor, a full rate): another replica
      // may have taken it since. Left to the next scan instead of a second GET of the search.
      if (deps.now() - takenAt >= deps.leaseMs) return;
      try {
        await deps.settle(requestId, signal);
      } catch (error) {
        deps.logger.error({ err: error, requestId }, 'vehicle search poll failed; retrying later');
      }
    });
    return ids.length;
  };

  const pause = createPause(() => deps.now());

  /** When to scan next: the earliest due search, within [intervalMs, idleMs] from now. */
  const nextScanAt = async (scanned: boolean): Promise<number> => {
    const now = deps.now();
    const earliest = now + deps.intervalMs;
    if (!scanned) return earliest;
    const due = await deps.store.nextDue().catch(() => now);
    return Math.max(earliest, Math.min(now + deps.idleMs, due ?? Infinity));
  };

  const run = async (signal: AbortSignal): Promise<void> => {
    while (!signal.aborted) {
      let taken = 0;
      let scanned = false;
      try {
        taken = await scan(signal);
        scanned = true;
      } catch (error) {
        // The store is down: try again after the interval.
        deps.logger.error({ err: error }, 'vehicle search scan failed');
      }
      // A full batch may mean more are due: scan again at once.
      if (taken >= deps.batchSize) continue;
      const earliest = deps.now() + deps.intervalMs;
      await pause.until(await nextScanAt(scanned), earliest, signal);
    }
  };

  return {
    scan,
    dueAt: (at) => {
      pause.wakeBy(at);
    },
    start() {
      if (loop) return;
      abort = new AbortController();
      loop = run(abort.signal);
    },
    async stop() {
      abort?.abort();
      await loop;
      loop = undefined;
      abort = undefined;
    },
  };
}

/** `store`, telling `dueAt` the due time of each search it records or reschedules. */
export function wakingStore(store: PendingStore, dueAt: (at: number) => void): PendingStore {
  return {
    add: async (search, at) => {
      await store.add(search, at);
      dueAt(at);
    },
    reschedule: async (search, at) => {
      await store.reschedule(search, at);
      dueAt(at);
    },
    get: (requestId) => store.get(requestId),
    takeDue: (now, limit, leaseMs) => store.takeDue(now, limit, leaseMs),
    claim: (requestId, owner, ttlMs) => store.claim(requestId, owner, ttlMs),
    extend: (requestId, owner, ttlMs) => store.extend(requestId, owner, ttlMs),
    admitFetch: (requestId, intervalMs) => store.admitFetch(requestId, intervalMs),
    release: (requestId, owner) => store.release(requestId, owner),
    finish: (requestId, searchId, doneTtlMs) => store.finish(requestId, searchId, doneTtlMs),
    doneSearch: (requestId) => store.doneSearch(requestId),
    count: () => store.count(),
    nextDue: () => store.nextDue(),
    close: () => store.close(),
  };
}

async function forEachLimited<T>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next++] as T;
      await fn(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/**
 * A sleep until a time that can be brought forward, never before `earliest` (the floor given
 * with it). A wake asked for while no sleep runs (during a scan) shortens the next one; an
 * abort ends it.
 */
function createPause(now: () => number): {
  until(at: number, earliest: number, signal: AbortSignal): Promise<void>;
  wakeBy(at: number): void;
} {
  let current: { at: number; earliest: number; arm(at: number): void } | undefined;
  let asked = Infinity;
  return {
    until(at, earliest, signal) {
      const wakeAt = Math.max(earliest, Math.min(at, asked));
      asked = Infinity;
      return new Promise<void>((resolve) => {
        let timer: NodeJS.Timeout | undefined;
        const done = (): void => {
          clearTimeout(timer);
          signal.removeEventListener('abort', done);
          current = undefined;
          resolve();
        };
        const arm = (next: number): void => {
          clearTimeout(timer);
          if (current) current.at = next;
          timer = setTimeout(done, Math.max(0, next - now()));
        };
        if (signal.aborted) {
          done();
          return;
        }
        signal.addEventListener('abort', done);
        current = { at: wakeAt, earliest, arm };
        arm(wakeAt);
      });
    },
    wakeBy(at) {
      if (!current) asked = Math.min(asked, at);
      else if (at < current.at) current.arm(Math.max(at, current.earliest));
    },
  };
}
