import type { Operation } from '../contract/operations.js';
import type { Logger } from '../observability/logger.js';
import { abortError, LimiterClosedError, SlotMissedError } from './errors.js';
import { JobBatcher } from './job-batcher.js';
import { QuotaAcquirer, type HeldSlot, type LateRetries } from './quota-acquirer.js';
import type { QuotaStore } from './quota-store.js';
import { createSleeper } from './sleeper.js';
import type { OperationLimiter, OperationLimitSettings, ScheduleOptions, Slot } from './types.js';

export interface OperationLimiterDeps {
  operation: Operation;
  settings: OperationLimitSettings;
  store: QuotaStore;
  shared: boolean;
  logger: Logger;
  now: () => number;
  /**
   * A call starting this much after its slot would crowd the calls after it; it takes a new
   * slot instead (a few times at most, so a lagging event loop cannot starve it).
   */
  lateToleranceMs: number;
  onSpendCap: (operation: Operation, resumeAt: number) => void;
}

export interface ManagedOperationLimiter extends OperationLimiter {
  close(): Promise<void>;
}

/**
 * Bottleneck holds the queue and the local concurrency slots (JobBatcher); a job that has a
 * slot then takes a quota slot from the store and sleeps until it (QuotaAcquirer). Taking the
 * quota only once a concurrency slot is held bounds how far ahead a replica reserves, and a job
 * aborted while still queued never touches the quota.
 */
export function createOperationLimiter(deps: OperationLimiterDeps): ManagedOperationLimiter {
  const logger = deps.logger.child({ component: 'limits', operation: deps.operation });
  const sleeper = createSleeper(deps.now);
  const parts: Parts = {
    quota: new QuotaAcquirer({ ...deps, logger, sleeper }),
    batcher: new JobBatcher(deps.settings.maxConcurrent, logger),
    counts: { queued: 0, running: 0 },
  };
  let closed = false;
  return {
    schedule(fn, options = {}) {
      if (closed) return Promise.reject(new LimiterClosedError());
      return schedule(parts, fn, options);
    },
    backoff(ms) {
      if (!Number.isFinite(ms) || ms <= 0) return;
      parts.quota.backoff(ms);
    },
    get stats() {
      const { queued, running } = parts.counts;
      return { queued, running, started: parts.quota.startedThisHour(), lateSlots: parts.quota.lateSlots };
    },
    async close() {
      if (closed) return;
      closed = true;
      sleeper.cancelAll(new LimiterClosedError());
      parts.quota.close();
      await parts.batcher.close();
    },
  };
}

interface Parts {
  quota: QuotaAcquirer;
  batcher: JobBatcher;
  /** queued: accepted, not started; running: fn in flight. */
  counts: { queued: number; running: number };
}

/**
 * One call: queued in the batcher, then a quota slot (and `beforeStart`), then fn; or an abort,
 * a failure of `beforeStart` or close first.
 */
function schedule<T>(
  parts: Parts,
  fn: (slot: Slot) => Promise<T>,
  { signal, beforeStart }: ScheduleOptions,
): Promise<T> {
  const { quota, batcher, counts } = parts;
  if (signal?.aborted) return Promise.reject(abortError(signal));
  counts.queued += 1;
  return new Promise<T>((resolve, reject) => {
    let waiting = true;
    /** True for the one caller that ends the waiting (start, abort, failure or close). */
    const stopWaiting = (): boolean => {
      if (!waiting) return false;
      waiting = false;
      counts.queued -= 1;
      signal?.removeEventListener('abort', onAbort);
      return true;
    };
    const fail = (error: unknown): void => {
      if (stopWaiting()) reject(error instanceof Error ? error : new Error(String(error)));
    };
    const onAbort = (): void => {
      if (signal) fail(abortError(signal));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    // Ends the waiting at once; a job already past the queue gives its slot back (acquire).
    beforeStart?.done.catch(fail);

    const job = async (): Promise<void> => {
      if (!waiting) return;
      const lateRetries: LateRetries = { count: 0 };
      const held = await quota.acquire(signal, beforeStart, lateRetries).catch((error: unknown) => {
        fail(error);
      });
      if (held === undefined) return;
      if (!stopWaiting()) {
        await quota.giveBack(held.token);
        return;
      }
      counts.running += 1;
      try {
        await run(quota, held, lateRetries, fn, signal).then(resolve, reject);
      } finally {
        counts.running -= 1;
      }
    };
    batcher.enqueue({ job, fail });
  });
}

/**
 * fn on its slot; when fn reports (through Slot.confirm) that its request would leave too late,
 * nothing was sent: the slot goes back and fn runs again on a new one.
 */
async function run<T>(
  quota: QuotaAcquirer,
  first: HeldSlot,
  lateRetries: LateRetries,
  fn: (slot: Slot) => Promise<T>,
  signal: AbortSignal | undefined,
): Promise<T> {
  let held = first;
  for (let renewals = 0; ; renewals++) {
    const current = held;
    let missed: SlotMissedError | undefined;
    let confirmed = false;
    const slot: Slot = {
      confirm: () => {
        if (confirmed) return;
        if (!quota.canStart(current, lateRetries)) throw (missed = new SlotMissedError());
        confirmed = true;
      },
      renewals,
    };
    try {
      return await Promise.resolve().then(() => fn(slot));
    } catch (error) {
      if (missed === undefined || error !== missed) throw error;
    }
    await quota.withdraw(held.token);
    held = await quota.acquire(signal, undefined, lateRetries);
  }
}
