import { HOUR_MS } from './settings.js';

/** What a reservation gave; handed back to release() when the call never starts. */
export interface SlotToken {
  /** The slot's start, as the store wrote it. */
  readonly slot: string;
  /** The theoretical arrival time this reservation left, as the store wrote it. */
  readonly tat: string;
  readonly window: number;
}

export type Admission =
  /**
   * Start after waitMs (0: the slot was free when asked). dueAt: the slot's start on the caller's
   * clock, when the store knows it; without it the wait counts from when the answer was read,
   * which hides the time an answer sat unread behind a busy event loop. started: calls started
   * in this hour window, when the store counts them.
   */
  | { kind: 'slot'; waitMs: number; dueAt?: number; token: SlotToken; started: number | undefined }
  | { kind: 'backoff'; waitMs: number }
  | { kind: 'spend-cap'; waitMs: number; resumeAt: number; started: number };

/** One operation's quota: its start rate, 429 backoff and the hourly spend cap. */
export interface QuotaStore {
  reserve(): Promise<Admission>;
  /** Gives a slot back when its call will not start (aborted, closed); best effort. */
  release(token: SlotToken): Promise<void>;
  backoff(ms: number): Promise<void>;
  /** Milliseconds of backoff left (0 when none). */
  backoffRemaining(): Promise<number>;
}

/**
 * The shape of the rate, two rules at once:
 * - GCRA with a burst tolerance: one start per `spacingMs` on average, and up to `burstMs`
 *   ahead of that pace, so a quiet limiter lets a small burst go at once (spread at
 *   `burstSpacingMs`) while a busy one starts calls evenly, which keeps both ends' event loops
 *   smooth and the way to the vendor short;
 * - a sliding-window log: never more than `perWindow` starts in any `windowMs`, whatever the
 *   burst did.
 */
export interface QuotaSettings {
  perWindow: number;
  windowMs: number;
  spacingMs: number;
  burstMs: number;
  burstSpacingMs: number;
  spendCapPerHour: number | undefined;
}

/**
 * Releases a slot may undo before the window forgets a start it still needs: the log keeps
 * this many starts beyond the window's count.
 */
export const LOG_SLACK = 64;

/**
 * A released slot gives its pace back when at most this many slots were taken after it: the
 * pace is then worked out again over those later slots (releasedPace). A slot deeper in the log
 * (only under a limit far above the machine's pace, where nothing is paced) keeps its pace spent.
 */
export const RELEASE_DEPTH = 1024;

/**
 * The theoretical arrival time once the slot whose reservation left `releasedTat` is given back,
 * `later` being the slots taken after it (latest first): the pace as if that reservation never
 * was, with the time before it taken as late as it can have been (max(slot, previous tat)).
 * Taking a slot out of a sequence that keeps the pace leaves one that keeps it, so the slots
 * used still keep it, and a slot given back because its call woke too late is not lost: before,
 * only the latest slot gave its pace back, and under a backlog every late slot was lost for good
 * once the burst's room had gone to earlier ones (issue 41: a share of the limit below 0.95).
 */
export function releasedPace(releasedTat: number, later: readonly number[], spacingMs: number): number {
  let tat = releasedTat - spacingMs;
  for (let i = later.length - 1; i >= 0; i--) tat = Math.max(later[i] ?? tat, tat) + spacingMs;
  return tat;
}

/** The in-process store, with how many starts it remembers (bounded by one window's). */
export interface MemoryQuotaStore extends QuotaStore {
  readonly remembered: number;
}

/**
 * In-process quota for a single replica. A reservation takes the slot
 * `max(now, tat - burst, latest + burstSpacing, the perWindow-th latest + window)` and moves
 * `tat` to `max(slot, tat) + spacing`; slots only ever move forward. A released slot leaves the
 * log and gives its pace back (releasedPace). Starts a window old are forgotten:
 * they no longer bound any slot, and under a high limit (benchmark (a)'s million a second) the
 * log otherwise grew by one number per call up to perWindow, the one-instance mode's memory
 * creeping by about 0.5 MiB a minute and each reservation's unshift copying the whole log.
 */
export function createMemoryQuotaStore(settings: QuotaSettings, now: () => number): MemoryQuotaStore {
  /** Slots, latest first. */
  const log: number[] = [];
  let tat = 0;
  let backoffUntil = 0;
  let window = -1;
  let count = 0;

  const currentCount = (at: number): number => {
    const current = Math.floor(at / HOUR_MS);
    if (current !== window) {
      window = current;
      count = 0;
    }
    return count;
  };

  return {
    get remembered() {
      return log.length;
    },
    reserve() {
      const at = now();
      // Latest first: the oldest starts are at the end.
      while (log.length > 0 && (log.at(-1) ?? at) + settings.windowMs <= at) log.pop();
      if (backoffUntil > at) return Promise.resolve({ kind: 'backoff', waitMs: backoffUntil - at });
      const cap = settings.spendCapPerHour;
      const started = currentCount(at);
      if (cap !== undefined && started >= cap) {
        const resumeAt = (window + 1) * HOUR_MS;
        return Promise.resolve({ kind: 'spend-cap', waitMs: resumeAt - at, resumeAt, started });
      }
      const start = nextSlot(log, tat, at, settings);
      tat = Math.max(start, tat) + settings.spacingMs;
      log.unshift(start);
      if (log.length > settings.perWindow + LOG_SLACK) log.length = settings.perWindow + LOG_SLACK;
      count += 1;
      const token = { slot: String(start), tat: String(tat), window };
      return Promise.resolve({ kind: 'slot', waitMs: start - at, dueAt: start, token, started: count });
    },
    release(token) {
      const index = log.findIndex((slot) => String(slot) === token.slot);
      if (index >= 0) {
        log.splice(index, 1);
        if (index <= RELEASE_DEPTH)
          tat = Math.min(tat, releasedPace(Number(token.tat), log.slice(0, index), settings.spacingMs));
      }
      if (token.window === window && count > 0) count -= 1;
      return Promise.resolve();
    },
    backoff(ms) {
      backoffUntil = Math.max(backoffUntil, now() + ms);
      return Promise.resolve();
    },
    backoffRemaining() {
      return Promise.resolve(Math.max(0, backoffUntil - now()));
    },
  };
}

/** The earliest slot at or after `at` that keeps the pace, the burst spacing and the window. */
function nextSlot(log: readonly number[], tat: number, at: number, settings: QuotaSettings): number {
  let start = Math.max(at, tat - settings.burstMs);
  const latest = log[0];
  if (latest !== undefined) start = Math.max(start, latest + settings.burstSpacingMs);
  const nth = log[settings.perWindow - 1];
  if (nth !== undefined) start = Math.max(start, nth + settings.windowMs);
  return start;
}
