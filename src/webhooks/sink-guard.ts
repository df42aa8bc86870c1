import type { Logger } from 'pino';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import type { RejectReason } from './signature.js';

/**
 * Bounds on the webhook sink, which anyone who can reach it may call: signed calls at once and
 * per second per replica (beyond them 503 / 429 with Retry-After; unsigned calls are refused
 * before, and spend neither), and rejected calls counted and logged as one line a minute
 * instead of one line each.
 */
export interface SinkLimits {
  maxConcurrent: number;
  ratePerSecond: number;
}

export type Admission = { ok: true; release(): void } | { ok: false; code: 429 | 503; retryAfterS: number };

export interface SinkGuard {
  admit(): Promise<Admission>;
  rejected(reason: RejectReason): void;
  /** Rejections not logged yet, by reason. */
  pending(): Readonly<Record<string, number>>;
}

const REJECTION_LOG_INTERVAL_MS = 60_000;

export function createSinkGuard(limits: SinkLimits, logger: Logger, now: () => number = Date.now): SinkGuard {
  const rate = new RateLimiterMemory({ points: limits.ratePerSecond, duration: 1 });
  let inFlight = 0;
  const counts = new Map<RejectReason, number>();
  let lastLogAt = Number.NEGATIVE_INFINITY;

  return {
    async admit() {
      if (inFlight >= limits.maxConcurrent) return { ok: false, code: 503, retryAfterS: 1 };
      try {
        await rate.consume('sink');
      } catch (error) {
        if (!(error instanceof RateLimiterRes)) throw error;
        return { ok: false, code: 429, retryAfterS: Math.max(1, Math.ceil(error.msBeforeNext / 1000)) };
      }
      inFlight += 1;
      let released = false;
      return {
        ok: true,
        release() {
          if (!released) inFlight -= 1;
          released = true;
        },
      };
    },
    rejected(reason) {
      counts.set(reason, (counts.get(reason) ?? 0) + 1);
      if (now() - lastLogAt < REJECTION_LOG_INTERVAL_MS) return;
      lastLogAt = now();
      logger.warn(
        { rejected: Object.fromEntries(counts) },
        'vehicle search webhook calls rejected (counts since last line)',
      );
      counts.clear();
    },
    pending: () => Object.fromEntries(counts),
  };
}
