import type { Redis } from 'ioredis';
import type { Lane, Operation } from '../contract/operations.js';
import type { Logger } from '../observability/logger.js';
import type { LaneFigures } from './lane-gate.js';

export interface OperationLimitSettings {
  ratePerSecond: number;
  maxConcurrent: number;
  spendCapPerHour?: number;
}

/** How the lanes share an operation's limit (lane-gate.ts). */
export interface LaneSettings {
  /** LANE_BULK_MIN_SHARE: the fraction of the limit bulk calls get while they wait, in [0, 1). */
  bulkMinShare: number;
}

export interface LimiterDeps {
  settings: Record<Operation, OperationLimitSettings>;
  /** When given, the rate, backoffs and spend caps are shared by every replica using the same keyPrefix. */
  redis?: Redis;
  keyPrefix: string;
  logger: Logger;
  /** The lanes' sharing of each limit; bulkMinShare DEFAULT_BULK_MIN_SHARE when absent. */
  lanes?: LaneSettings;
  /** Epoch milliseconds; sub-millisecond precision welcome. */
  now?: () => number;
  /**
   * Fraction by which call spacing is widened (DEFAULT_RATE_MARGIN, 0.035): a call that starts a
   * little late (timer or event-loop delay) must not let the following calls crowd one second
   * past the limit. 0.035 tolerates 35 ms of uneven lateness a second; see bench/limits.ts for the
   * figures.
   */
  rateMargin?: number;
}

export interface ScheduleOptions {
  signal?: AbortSignal | undefined;
  /**
   * The request's lane (interactive when absent): interactive calls take the next free slot
   * before any bulk call; bulk calls get at least their reserved share (limits/lane-gate.ts).
   */
  lane?: Lane | undefined;
  /** The caller's own work that must succeed before fn starts; the limiter knows no more of it. */
  beforeStart?: BeforeStart | undefined;
}

/** Work of the caller's that fn waits for, set going by the limiter at the right moment. */
export interface BeforeStart {
  /**
   * Sets the work going (a second call does nothing). The limiter calls it just as it asks the
   * quota store for the job's slot, so that a Redis command it sends shares that round trip;
   * and before it waits on `done` in any case.
   */
  begin(): void;
  /**
   * Settles with the work: fn starts only once it resolves; a rejection ends the job as an
   * abort does, with its reason (a slot already taken is given back).
   */
  readonly done: Promise<unknown>;
}

/** The quota slot a started job holds. */
export interface Slot {
  /**
   * Called synchronously just before the request leaves: throws when it would leave too late
   * for its slot, or a backoff began meanwhile. fn must then reject with that very error, having
   * sent nothing; the limiter gives the slot back, takes a new one and calls fn again (a few
   * times at most, as for a late wake-up). A job whose fn never calls it starts on waking.
   */
  readonly confirm: () => void;
  /**
   * How many times fn already ran for this call on slots it gave back (0 the first time): a
   * wrapper that counts calls counts the first run only.
   */
  readonly renewals: number;
}

export interface OperationLimiter {
  /**
   * Runs fn when the local concurrency slot and the (shared) quota allow it. Rejects with the
   * original error of fn. Honors signal: a queued job aborted before it starts rejects with an
   * AbortError and consumes no quota. `beforeStart.done`, when given, must resolve before fn
   * starts: the job waits in the queue and for its slot meanwhile, and a rejection ends it as
   * an abort does (with that reason; a slot already taken is given back).
   */
  schedule<T>(fn: (slot: Slot) => Promise<T>, options?: ScheduleOptions): Promise<T>;
  /** The vendor answered 429: stop starting calls for this operation for `ms` (Retry-After), across replicas when shared. */
  backoff(ms: number): void;
  /**
   * queued: accepted, not started; running: fn in flight; started: calls started in the current
   * hour window (counted across replicas when a spend cap is set and Redis is shared);
   * lateSlots: slots given back since start-up because the call would have started too late
   * for them (on waking, or as its request left).
   */
  readonly stats: {
    queued: number;
    running: number;
    started: number;
    lateSlots: number;
    /** Per lane: calls waiting for a slot, and how long the oldest of them has waited. */
    lanes: Record<Lane, LaneFigures>;
  };
}

/** What a caller of the vendor needs of its operation's limiter. */
export type ScheduleLimiter = Pick<OperationLimiter, 'schedule' | 'backoff'>;

export type SpendCapListener = (operation: Operation, resumeAt: number) => void;

export interface Limiters {
  get(operation: Operation): OperationLimiter;
  /** Fires once per replica each time an operation reaches its spend cap; resumeAt is epoch ms. */
  on(event: 'spend-cap', listener: SpendCapListener): void;
  /** Rejects queued jobs, stops timers, waits for running calls; never quits the given Redis connection. */
  close(): Promise<void>;
}
