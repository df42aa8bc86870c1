import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { Settlement } from './completion.js';
import type { PendingStore } from './pending-store.js';

/**
 * One loop per replica: takes the searches whose next poll is due and settles each under its
 * claim, so replicas share the work without polling one search twice at once. It is the
 * safety net of the webhook (delivery is unspecified: vendor-api.md, "Events"), the only path
 * for searches created without one, and the clock of the expiry.
 */
export interface PollerDeps {
  store: PendingStore;
  settle(requestId: string, signal: AbortSignal): Promise<Settlement>;
  /** Pause between scans when nothing was due. */
  intervalMs: number;
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
}

export function createPoller(deps: PollerDeps): Poller {
  let abort: AbortController | undefined;
  let loop: Promise<void> | undefined;

  const scan = async (signal: AbortSignal): Promise<number> => {
    const ids = await deps.store.takeDue(deps.now(), deps.batchSize, deps.leaseMs);
    await forEachLimited(ids, deps.concurrency, async (requestId) => {
      if (signal.aborted) return;
      try {
        await deps.settle(requestId, signal);
      } catch (error) {
        deps.logger.error({ err: error, requestId }, 'vehicle search poll failed; retrying later');
      }
    });
    return ids.length;
  };

  const run = async (signal: AbortSignal): Promise<void> => {
    while (!signal.aborted) {
      let taken = 0;
      try {
        taken = await scan(signal);
      } catch (error) {
        // The store is down: try again after the interval.
        deps.logger.error({ err: error }, 'vehicle search scan failed');
      }
      // A full batch may mean more are due: scan again at once.
      if (taken < deps.batchSize) await sleep(deps.intervalMs, undefined, { signal }).catch(() => undefined);
    }
  };

  return {
    scan,
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
