import { HOUR_MS } from './settings.js';

/** What a reservation gave; handed back to release() when the call never starts. */
export interface SlotToken {
  /** The slot's start (µs on the store's clock, as the store wrote it). */
  readonly slot: string;
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
 * The shape of the rate: at most `perWindow` starts in any `windowMs` (a sliding window, so a
 * burst up to that many starts at once), and no two starts closer than `spacingMs`, which
 * spreads a burst over a fraction of the window so that it reaches the vendor as it was let go.
 */
export interface QuotaSettings {
  perWindow: number;
  windowMs: number;
  spacingMs: number;
  spendCapPerHour: number | undefined;
}

/**
 * Releases a slot may undo before the window forgets a start it still needs: the log keeps
 * this many starts beyond the window's count.
 */
export const LOG_SLACK = 64;

/**
 * In-process quota for a single replica: a log of the latest slots. A reservation takes
 * `max(now, latest + spacing, the perWindow-th latest + window)`, so slots only ever move
 * forward and no window holds more than perWindow of them; a released slot leaves the log.
 */
export function createMemoryQuotaStore(settings: QuotaSettings, now: () => number): QuotaStore {
  /** Slots, latest first. */
  let log: number[] = [];
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
    reserve() {
      const at = now();
      if (backoffUntil > at) return Promise.resolve({ kind: 'backoff', waitMs: backoffUntil - at });
      const cap = settings.spendCapPerHour;
      const started = currentCount(at);
      if (cap !== undefined && started >= cap) {
        const resumeAt = (window + 1) * HOUR_MS;
        return Promise.resolve({ kind: 'spend-cap', waitMs: resumeAt - at, resumeAt, started });
      }
      const start = nextSlot(log, at, settings);
      log.unshift(start);
      if (log.length > settings.perWindow + LOG_SLACK) log.length = settings.perWindow + LOG_SLACK;
      count += 1;
      const token = { slot: String(start), window };
      return Promise.resolve({ kind: 'slot', waitMs: start - at, dueAt: start, token, started: count });
    },
    release(token) {
      const index = log.findIndex((slot) => String(slot) === token.slot);
      if (index >= 0) log = log.filter((_, i) => i !== index);
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

/** The earliest slot at or after `at` that keeps spacing and the window's count. */
function nextSlot(log: readonly number[], at: number, settings: QuotaSettings): number {
  let start = at;
  const latest = log[0];
  if (latest !== undefined) start = Math.max(start, latest + settings.spacingMs);
  const nth = log[settings.perWindow - 1];
  if (nth !== undefined) start = Math.max(start, nth + settings.windowMs);
  return start;
}
