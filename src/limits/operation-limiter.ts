import Bottleneck from 'bottleneck';
import type { Operation } from '../contract/operations.js';
import type { Logger } from '../observability/logger.js';
import { useMicrotaskYield } from './bottleneck-yield.js';
import { abortError, LimiterClosedError, QuotaUnavailableError } from './errors.js';
import type { QuotaStore, SlotToken } from './quota-store.js';
import { HOUR_MS } from './settings.js';
import { createSleeper } from './sleeper.js';
import type { OperationLimiter, OperationLimitSettings } from './types.js';

/**
 * A shared backoff set by another replica reaches this one on its next reservation; while calls
 * sleep towards their slots, Redis is also asked this often, in the background, so that a call
 * wakes knowing of a backoff that began meanwhile. Asking on waking instead (a round trip before
 * every start) shifted each start by that round trip's jitter, which bunched calls.
 */
const BACKOFF_REFRESH_MS = 20;
/** A call that woke later than its tolerance takes a new slot this many times, then starts anyway. */
const MAX_LATE_RETRIES = 3;
const LATE_WARNING_INTERVAL_MS = 10_000;
/** The most calls one bottleneck job carries (see enqueue). */
const MAX_GROUP = 32;

export interface OperationLimiterDeps {
  operation: Operation;
  settings: OperationLimitSettings;
  store: QuotaStore;
  shared: boolean;
  logger: Logger;
  now: () => number;
  /**
   * A call starting this much after its slot would crowd the calls after it; it takes a new
   * slot instead (bounded by MAX_LATE_RETRIES, so a lagging event loop cannot starve it).
   */
  lateToleranceMs: number;
  onSpendCap: (operation: Operation, resumeAt: number) => void;
}

export interface ManagedOperationLimiter extends OperationLimiter {
  close(): Promise<void>;
}

/**
 * Bottleneck holds the queue and the local concurrency slots; a job that has a slot then takes
 * a quota slot from the store (rate, 429 backoff, spend cap) and sleeps until it. Taking the
 * quota only once a concurrency slot is held bounds how far ahead a replica reserves, and a job
 * aborted while still queued never touches the quota.
 */
export function createOperationLimiter(deps: OperationLimiterDeps): ManagedOperationLimiter {
  const { operation, store, now } = deps;
  const logger = deps.logger.child({ component: 'limits', operation });
  const sleeper = createSleeper(now);
  useMicrotaskYield();
  const bottleneck = new Bottleneck({ maxConcurrent: deps.settings.maxConcurrent });
  bottleneck.on('error', (error: unknown) => {
    logger.error({ err: error }, 'local scheduler failed');
  });
  let closed = false;
  let queued = 0;
  let running = 0;
  let backoffUntil = 0;
  let announcedResumeAt = 0;
  const started = { window: -1, count: 0 };

  function noteStarted(count: number | undefined): void {
    const window = Math.floor(now() / HOUR_MS);
    if (window !== started.window) Object.assign(started, { window, count: 0 });
    started.count = count ?? started.count + 1;
  }

  function announceSpendCap(resumeAt: number): void {
    if (resumeAt === announcedResumeAt) return;
    announcedResumeAt = resumeAt;
    logger.warn({ resumeAt: new Date(resumeAt).toISOString() }, 'spend cap reached; calls wait');
    deps.onSpendCap(operation, resumeAt);
  }

  async function quota<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      logger.warn({ err: error }, 'shared quota unavailable');
      throw new QuotaUnavailableError(error);
    }
  }

  function giveBack(token: SlotToken): Promise<void> {
    return store.release(token).catch((error: unknown) => {
      logger.warn({ err: error }, 'could not give back an unused slot');
    });
  }

  let sleepers = 0;
  let refresher: NodeJS.Timeout | undefined;
  let refreshing = false;
  function refreshBackoff(): void {
    if (refreshing) return;
    refreshing = true;
    store
      .backoffRemaining()
      .then((left) => {
        if (left > 0) backoffUntil = Math.max(backoffUntil, now() + left);
      })
      .catch((error: unknown) => {
        logger.debug({ err: error }, 'could not read the shared backoff');
      })
      .finally(() => {
        refreshing = false;
      });
  }

  /** Sleeps until a reserved slot, refreshing the shared backoff meanwhile. */
  async function sleepToSlot(due: number, signal: AbortSignal | undefined): Promise<void> {
    const counted = deps.shared && due > now();
    if (counted) {
      sleepers += 1;
      refresher ??= setInterval(refreshBackoff, BACKOFF_REFRESH_MS).unref();
    }
    try {
      await sleeper.until(due, signal);
    } finally {
      if (counted && --sleepers === 0) {
        clearInterval(refresher);
        refresher = undefined;
      }
    }
  }

  /**
   * On waking at a slot due at `due`: false when a backoff began or the call would start too
   * late to use it. Synchronous, so that nothing stands between waking and starting.
   */
  function canStart(due: number, lateRetries: { count: number }): boolean {
    if (backoffUntil > now()) return false;
    const lateMs = now() - due;
    if (lateMs <= deps.lateToleranceMs) return true;
    if (lateRetries.count < MAX_LATE_RETRIES) {
      lateRetries.count += 1;
      return false;
    }
    warnLate(lateMs);
    return true;
  }

  /** At most one warning per interval, with how many late starts it stands for. */
  let lateSince = { at: 0, count: 0 };
  function warnLate(lateMs: number): void {
    lateSince.count += 1;
    if (now() - lateSince.at < LATE_WARNING_INTERVAL_MS) return;
    logger.warn({ lateMs, lateStarts: lateSince.count }, 'calls start late; event loop lagging');
    lateSince = { at: now(), count: 0 };
  }

  /** Waits until the quota lets one call start; returns the slot taken. */
  async function acquire(signal: AbortSignal | undefined): Promise<SlotToken> {
    const lateRetries = { count: 0 };
    for (;;) {
      if (backoffUntil > now()) await sleeper.until(backoffUntil, signal);
      const admission = await quota(() => store.reserve());
      // Lateness counts from the slot's start on this clock (dueAt), else from the answer: the
      // round trip to Redis is not the event loop lagging, and counting it made every call
      // under load give its slot back and ask again.
      const answered = now();
      if (admission.kind === 'backoff') {
        backoffUntil = Math.max(backoffUntil, now() + admission.waitMs);
        continue;
      }
      if (admission.kind === 'spend-cap') {
        announceSpendCap(admission.resumeAt);
        await sleeper.until(now() + admission.waitMs, signal);
        continue;
      }
      const due = admission.dueAt ?? answered + admission.waitMs;
      try {
        await sleepToSlot(due, signal);
        // Only a call that waited for its slot can crowd the calls after it by starting late;
        // a slot that was free when asked has none queued right behind it.
        if (!canStart(admission.waitMs > 0 ? due : Infinity, lateRetries)) {
          await giveBack(admission.token);
          continue;
        }
      } catch (error) {
        await giveBack(admission.token);
        throw error;
      }
      noteStarted(admission.started);
      return admission.token;
    }
  }

  function schedule<T>(fn: () => Promise<T>, options: { signal?: AbortSignal } = {}): Promise<T> {
    const { signal } = options;
    if (closed) return Promise.reject(new LimiterClosedError());
    if (signal?.aborted) return Promise.reject(abortError(signal));
    queued += 1;
    return new Promise<T>((resolve, reject) => {
      let waiting = true;
      /** True for the one caller that ends the waiting (start, abort, failure or close). */
      const stopWaiting = (): boolean => {
        if (!waiting) return false;
        waiting = false;
        queued -= 1;
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

      const job = async (): Promise<void> => {
        if (!waiting) return;
        const token = await acquire(signal).catch((error: unknown) => {
          fail(error);
        });
        if (token === undefined) return;
        if (!stopWaiting()) {
          await giveBack(token);
          return;
        }
        running += 1;
        await Promise.resolve()
          .then(fn)
          .then(resolve, reject)
          .finally(() => {
            running -= 1;
          });
      };
      enqueue({ job, fail });
    });
  }

  /**
   * Calls scheduled in the same turn of the event loop go to bottleneck as one job weighing as
   * many calls (up to `groupSize`): its queue and maxConcurrent hold as before, while its
   * per-job cost (a serialised submit path, about 100 µs of CPU) is paid once a group. A group
   * holds its weight until its last call ends, so groups stay small against maxConcurrent.
   */
  const groupSize = Math.max(1, Math.min(MAX_GROUP, Math.floor(deps.settings.maxConcurrent / 8)));
  interface Entry {
    job: () => Promise<void>;
    fail: (error: unknown) => void;
  }
  let pendingEntries: Entry[] = [];
  let flushing: NodeJS.Immediate | undefined;

  function enqueue(entry: Entry): void {
    pendingEntries.push(entry);
    flushing ??= setImmediate(flush);
  }

  function flush(): void {
    flushing = undefined;
    const entries = pendingEntries;
    pendingEntries = [];
    for (let from = 0; from < entries.length; from += groupSize) {
      const group = entries.slice(from, from + groupSize);
      bottleneck
        .schedule({ weight: group.length }, () => Promise.allSettled(group.map((entry) => entry.job())))
        .catch(() => {
          for (const entry of group) entry.fail(new LimiterClosedError());
        });
    }
  }

  return {
    schedule,
    backoff(ms) {
      if (!Number.isFinite(ms) || ms <= 0) return;
      backoffUntil = Math.max(backoffUntil, now() + ms);
      logger.warn({ backoffMs: ms }, 'vendor rate limited; pausing calls');
      store.backoff(ms).catch((error: unknown) => {
        logger.warn({ err: error }, 'could not share the backoff');
      });
    },
    get stats() {
      const current = started.window === Math.floor(now() / HOUR_MS) ? started.count : 0;
      return { queued, running, started: current };
    },
    async close() {
      if (closed) return;
      closed = true;
      sleeper.cancelAll(new LimiterClosedError());
      clearImmediate(flushing);
      for (const entry of pendingEntries) entry.fail(new LimiterClosedError());
      pendingEntries = [];
      clearInterval(refresher);
      await bottleneck.stop({ dropWaitingJobs: true, dropErrorMessage: 'limiter closed' });
    },
  };
}
