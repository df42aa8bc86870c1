import { HOUR_MS } from './settings.js';

/** What a reservation gave; handed back to release() when the call never starts. */
export interface SlotToken {
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

/** One operation's quota: call spacing (GCRA), 429 backoff and the hourly spend cap. */
export interface QuotaStore {
  reserve(): Promise<Admission>;
  /** Gives a slot back when its call will not start (aborted, closed); best effort. */
  release(token: SlotToken): Promise<void>;
  backoff(ms: number): Promise<void>;
  /** Milliseconds of backoff left (0 when none). */
  backoffRemaining(): Promise<number>;
}

export interface QuotaSettings {
  spacingMs: number;
  spendCapPerHour: number | undefined;
}

/**
 * In-process quota for a single replica. Virtual scheduling (GCRA): each reservation takes
 * the next free slot `tat = max(now, tat) + spacing`, so no two starts are closer than spacing
 * and a reservation can be undone exactly when it is the latest one.
 */
export function createMemoryQuotaStore(settings: QuotaSettings, now: () => number): QuotaStore {
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
    reserve() {
      const at = now();
      if (backoffUntil > at) return Promise.resolve({ kind: 'backoff', waitMs: backoffUntil - at });
      const cap = settings.spendCapPerHour;
      const started = currentCount(at);
      if (cap !== undefined && started >= cap) {
        const resumeAt = (window + 1) * HOUR_MS;
        return Promise.resolve({ kind: 'spend-cap', waitMs: resumeAt - at, resumeAt, started });
      }
      const start = Math.max(at, tat);
      tat = start + settings.spacingMs;
      count += 1;
      const token = { tat: String(tat), window };
      return Promise.resolve({ kind: 'slot', waitMs: start - at, dueAt: start, token, started: count });
    },
    release(token) {
      if (String(tat) === token.tat) tat -= settings.spacingMs;
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
