import { sha256Hex } from './random.js';

export interface CounterSnapshot {
  /** Every request to a vendor path (admin paths excluded), whatever its answer. */
  total: number;
  /** Billable calls: answered 200 or 404 by an operation, no fault injected. */
  billed: number;
  /** Billable calls per operation. */
  byOperation: Record<string, number>;
  /** Billable calls per fingerprint (operation + ':' + sha256 prefix of the normalised input). */
  byFingerprint: Record<string, number>;
  /** Most billable calls in one one-second window (the rate limit's windows). */
  maxInOneSecond: number;
  /** Most billable calls within any 1,000 ms (a sliding window over their arrival times). */
  maxInAnySlidingSecond: number;
  /** Most calls of any outcome (429s and 401s included) in one one-second window. */
  maxAttemptsInOneSecond: number;
  rateLimited: number;
  unauthorized: number;
  /** Calls answered with an injected fault (5xx, timeout, reset). */
  faults: number;
  webhooks: { delivered: number; attempts: number; failed: number; dropped: number };
}

/** Fingerprint of a billable input: never the raw tax id, only a hash prefix of it. */
export function fingerprintOf(operation: string, normalisedInput: string): string {
  return `${operation}:${sha256Hex(normalisedInput).slice(0, 16)}`;
}

const RING = 8;

/**
 * Counts per one-second window in a small ring indexed by epoch second, so a call answered after
 * the window moved on is still counted in the window it arrived in.
 */
class WindowRing {
  private readonly seconds = new Array<number>(RING).fill(-1);
  private readonly counts = new Array<number>(RING).fill(0);
  max = 0;

  add(second: number): number {
    const slot = second % RING;
    if (this.seconds[slot] !== second) {
      if ((this.seconds[slot] ?? -1) > second) return 0;
      this.seconds[slot] = second;
      this.counts[slot] = 0;
    }
    const count = (this.counts[slot] ?? 0) + 1;
    this.counts[slot] = count;
    if (count > this.max) this.max = count;
    return count;
  }

  current(second: number): number {
    const slot = second % RING;
    return this.seconds[slot] === second ? (this.counts[slot] ?? 0) : 0;
  }

  clear(): void {
    this.seconds.fill(-1);
    this.counts.fill(0);
    this.max = 0;
  }
}

/**
 * The most calls within any 1,000 ms, by arrival time: an aligned window can hide a burst
 * that straddles two seconds, which a rate limit must not allow either. Calls are counted when
 * answered, so arrival times come out of order (a slow answer after a fast one): each is put in
 * its sorted place, and windows are counted over the sorted times. Times older than the newest
 * by more than SETTLE_MS (far longer than any answer takes) are folded into `settledMax` and
 * dropped, which bounds the memory of a long-running sandbox.
 */
const SETTLE_MS = 120_000;
const COMPACT_AT = 50_000;

class SlidingSecond {
  private times: number[] = [];
  private settledMax = 0;
  /** Compacting again before this many more times arrive would scan the same times again. */
  private compactAt = COMPACT_AT;

  add(atMs: number): void {
    let low = this.times.length;
    // Nearly sorted input: most times go at the end; the others find their place by binary search.
    if (low > 0 && (this.times[low - 1] ?? 0) > atMs) {
      let high = low - 1;
      low = 0;
      while (low < high) {
        const mid = (low + high) >>> 1;
        if ((this.times[mid] ?? 0) <= atMs) low = mid + 1;
        else high = mid;
      }
    }
    this.times.splice(low, 0, atMs);
    if (this.times.length >= this.compactAt) this.compact();
  }

  get max(): number {
    return Math.max(this.settledMax, windowMax(this.times, this.times.length));
  }

  clear(): void {
    this.times = [];
    this.settledMax = 0;
    this.compactAt = COMPACT_AT;
  }

  private compact(): void {
    const cutoff = (this.times[this.times.length - 1] ?? 0) - SETTLE_MS;
    let settled = 0;
    while (settled < this.times.length && (this.times[settled] ?? 0) < cutoff) settled += 1;
    this.settledMax = Math.max(this.settledMax, windowMax(this.times, settled));
    this.times = this.times.slice(settled);
    this.compactAt = this.times.length + COMPACT_AT;
  }
}

/** Most sorted times within [t, t + 1000) for a window starting at each of the first `starts`. */
function windowMax(times: readonly number[], starts: number): number {
  let most = 0;
  let end = 0;
  for (let i = 0; i < starts; i += 1) {
    const from = times[i] ?? 0;
    while (end < times.length && (times[end] ?? 0) < from + 1000) end += 1;
    most = Math.max(most, end - i);
  }
  return most;
}

export class Counters {
  private total = 0;
  private billed = 0;
  private rateLimited = 0;
  private unauthorized = 0;
  private faults = 0;
  private byOperation = new Map<string, number>();
  private byFingerprint = new Map<string, number>();
  private readonly attempts = new WindowRing();
  private readonly billable = new WindowRing();
  private readonly billableSliding = new SlidingSecond();
  /** Accepted (not rate-limited) calls per window: what the rate limit compares against. */
  private readonly accepted = new WindowRing();
  readonly webhooks = { delivered: 0, attempts: 0, failed: 0, dropped: 0 };

  /** Counts an arriving call and returns how many calls were accepted in its window so far. */
  recordAttempt(second: number): number {
    this.total++;
    this.attempts.add(second);
    return this.accepted.current(second);
  }

  recordAccepted(second: number): void {
    this.accepted.add(second);
  }

  recordRateLimited(): void {
    this.rateLimited++;
  }

  recordUnauthorized(): void {
    this.unauthorized++;
  }

  recordFault(): void {
    this.faults++;
  }

  recordBilled(
    second: number,
    operation: string,
    fingerprint: string | undefined,
    arrivedAtMs: number,
  ): void {
    this.billed++;
    this.billable.add(second);
    this.billableSliding.add(arrivedAtMs);
    this.byOperation.set(operation, (this.byOperation.get(operation) ?? 0) + 1);
    if (fingerprint !== undefined)
      this.byFingerprint.set(fingerprint, (this.byFingerprint.get(fingerprint) ?? 0) + 1);
  }

  snapshot(): CounterSnapshot {
    return {
      total: this.total,
      billed: this.billed,
      byOperation: Object.fromEntries(this.byOperation),
      byFingerprint: Object.fromEntries(this.byFingerprint),
      maxInOneSecond: this.billable.max,
      maxInAnySlidingSecond: this.billableSliding.max,
      maxAttemptsInOneSecond: this.attempts.max,
      rateLimited: this.rateLimited,
      unauthorized: this.unauthorized,
      faults: this.faults,
      webhooks: { ...this.webhooks },
    };
  }

  reset(): void {
    this.total = 0;
    this.billed = 0;
    this.rateLimited = 0;
    this.unauthorized = 0;
    this.faults = 0;
    this.byOperation = new Map();
    this.byFingerprint = new Map();
    this.attempts.clear();
    this.billable.clear();
    this.billableSliding.clear();
    this.accepted.clear();
    Object.assign(this.webhooks, { delivered: 0, attempts: 0, failed: 0, dropped: 0 });
  }
}
