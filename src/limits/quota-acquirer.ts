import type { Operation } from '../contract/operations.js';
import type { Logger } from '../observability/logger.js';
import { abortError, QuotaUnavailableError } from './errors.js';
import type { Admission, QuotaStore, SlotToken } from './quota-store.js';
import { HOUR_MS } from './settings.js';
import type { Sleeper } from './sleeper.js';
import { LentSlots, type LentSlot } from './lent-slots.js';
import type { BeforeStart } from './types.js';

/**
 * A shared backoff set by another replica reaches this one on its next reservation; while calls
 * sleep towards their slots, Redis is also asked this often, in the background, so that a call
 * wakes knowing of a backoff that began meanwhile. Asking on waking instead (a round trip before
 * every start) shifted each start by that round trip's jitter, which bunched calls. A
 * reservation that got a slot also tells that no backoff ran: under steady traffic those answers
 * come more often than this, and the background read is skipped.
 */
const BACKOFF_REFRESH_MS = 20;
/** A call that woke later than its tolerance takes a new slot this many times, then starts anyway. */
const MAX_LATE_RETRIES = 3;
const LATE_WARNING_INTERVAL_MS = 10_000;

/**
 * A slot taken: its token for the store, when it is due on this clock (epoch ms), and whether
 * the quota paced it: the store put it at least lateToleranceMs ahead, behind slots already
 * taken. Only a paced slot is checked for lateness (canStart).
 */
export interface HeldSlot {
  token: SlotToken;
  due: number;
  paced: boolean;
}

/** New slots one call took because it would have started late (at most MAX_LATE_RETRIES). */
export interface LateRetries {
  count: number;
}

export interface QuotaAcquirerDeps {
  operation: Operation;
  store: QuotaStore;
  /** The store is shared by replicas (Redis): a backoff may begin elsewhere. */
  shared: boolean;
  /** Already bound to the operation. */
  logger: Logger;
  now: () => number;
  sleeper: Sleeper;
  /**
   * A call starting this much after its slot would crowd the calls after it; it takes a new
   * slot instead (bounded by MAX_LATE_RETRIES, so a lagging event loop cannot starve it).
   */
  lateToleranceMs: number;
  onSpendCap: (operation: Operation, resumeAt: number) => void;
}

/** One call's acquire: its `beforeStart`, what it reports, and how it shares slots (lanes). */
export interface AcquireOptions {
  /** Set going (begin) as the slot is asked for, and waited for (done) once it is due. */
  beforeStart?: BeforeStart | undefined;
  /** New slots taken for lateness; the caller shares it with canStart. */
  lateRetries?: LateRetries;
  /** Called when the call holds a slot, before sleeping towards it (lanes). */
  onReserved?: (() => void) | undefined;
  /**
   * 'take': the call takes a lent slot when there is one (interactive); 'lend': it lends its
   * paced slot while it sleeps towards it (bulk beyond its share); neither by default.
   */
  slots?: 'take' | 'lend' | undefined;
}

/**
 * The quota side of one operation's limiter: takes a slot from the store (rate, 429 backoff,
 * spend cap), sleeps until it, and decides on waking whether the call may still start.
 */
export class QuotaAcquirer {
  private backoffUntil = 0;
  private announcedResumeAt = 0;
  private readonly started = { window: -1, count: 0 };
  private sleepers = 0;
  private refresher: NodeJS.Timeout | undefined;
  private refreshing = false;
  /** When the store last told this replica whether a backoff runs (this clock). */
  private backoffHeardAt = -Infinity;
  private lateSince = { at: 0, count: 0 };
  /** Slots given back because the call would have started too late for them. */
  lateSlots = 0;
  /** Paced slots this replica's bulk calls sleep towards, which interactive calls may take. */
  private readonly lent = new LentSlots();

  constructor(private readonly deps: QuotaAcquirerDeps) {}

  /**
   * Waits until the quota lets one call start, and for `beforeStart`; returns the slot taken. A
   * call whose `beforeStart` came after the slot's tolerance takes a new slot, as a late
   * wake-up does. A lending call (bulk) lends its paced slot while it sleeps towards it; a
   * taking one (interactive) takes the lent slot due soonest before asking the store.
   */
  async acquire(signal: AbortSignal | undefined, options: AcquireOptions = {}): Promise<HeldSlot> {
    const { beforeStart, lateRetries = { count: 0 }, onReserved } = options;
    let { slots } = options;
    const { now, sleeper } = this.deps;
    for (;;) {
      if (this.backoffUntil > now()) await sleeper.until(this.backoffUntil, signal);
      // In the same tick as the reservation: a Redis command it sends goes in the same write.
      beforeStart?.begin();
      // Only when some are lent: otherwise the reservation goes in the same tick as begin().
      const lent =
        slots === 'take' && this.lent.size > 0 ? await this.takeLent(beforeStart, signal) : undefined;
      const admission = lent?.admission ?? (await this.reserve());
      // Lateness counts from the slot's start on this clock (dueAt), else from the answer: the
      // round trip to Redis is not the event loop lagging, and counting it made every call
      // under load give its slot back and ask again.
      const answered = now();
      if (admission.kind === 'slot' && !lent) this.backoffHeardAt = answered;
      if (admission.kind === 'backoff') {
        this.backoffUntil = Math.max(this.backoffUntil, now() + admission.waitMs);
        continue;
      }
      if (admission.kind === 'spend-cap') {
        // The store's count, so that a replica restarted in a capped hour reports the cap's
        // calls too, not 0 (the spend-cap gauge and its alert).
        this.noteStarted(admission.started);
        this.announceSpendCap(admission.resumeAt);
        await sleeper.until(now() + admission.waitMs, signal);
        continue;
      }
      onReserved?.();
      const due = lent?.due ?? admission.dueAt ?? answered + admission.waitMs;
      const paced = admission.waitMs >= this.deps.lateToleranceMs;
      try {
        const kept = await this.sleepToSlot({ admission, due }, signal, slots === 'lend' && paced);
        // An interactive call took the slot: it is theirs now, and this call asks again, for a
        // slot it keeps (each bulk call is displaced once at most).
        if (!kept) {
          slots = undefined;
          continue;
        }
        if (beforeStart) await beforeStart.done;
        // Every slot counts in the window of the calls after it, a free one included: a call
        // starting late would crowd the window of a later one.
        if (!this.canStart({ due, paced }, lateRetries)) {
          await this.giveBack(admission.token);
          continue;
        }
      } catch (error) {
        await this.giveBack(admission.token);
        throw error;
      }
      this.noteStarted(admission.started);
      return { token: admission.token, due, paced };
    }
  }

  /**
   * The lent slot due soonest, once `beforeStart` is done: a lent slot is a few ms ahead, less
   * than the claim's round trip under load, and a call that took one before its claim answered
   * gave it back as late (a slot lost) and asked again. Undefined when none is lent by then.
   */
  private async takeLent(
    beforeStart: BeforeStart | undefined,
    signal: AbortSignal | undefined,
  ): Promise<LentSlot | undefined> {
    if (beforeStart) await beforeStart.done;
    if (signal?.aborted) throw abortError(signal);
    return this.lent.takeSoonest(this.deps.now());
  }

  /** Gives back a slot that will not be used; a failure only costs that slot. */
  giveBack(token: SlotToken): Promise<void> {
    return this.deps.store.release(token).catch((error: unknown) => {
      this.deps.logger.warn({ err: error }, 'could not give back an unused slot');
    });
  }

  /**
   * Gives back the slot of a call already counted as started whose request was then refused
   * before it left (Slot.confirm): the call takes a new slot and is counted again there.
   */
  withdraw(token: SlotToken): Promise<void> {
    const window = Math.floor(this.deps.now() / HOUR_MS);
    if (this.started.window === window && this.started.count > 0) this.started.count -= 1;
    return this.giveBack(token);
  }

  /** The vendor answered 429: no call starts for `ms`, here at once and in the store. */
  backoff(ms: number): void {
    const { logger, now, store } = this.deps;
    this.backoffUntil = Math.max(this.backoffUntil, now() + ms);
    logger.warn({ backoffMs: ms }, 'vendor rate limited; pausing calls');
    store.backoff(ms).catch((error: unknown) => {
      logger.warn({ err: error }, 'could not share the backoff');
    });
  }

  /** Calls started in the current hour window (the store's count when it gives one). */
  startedThisHour(): number {
    return this.started.window === Math.floor(this.deps.now() / HOUR_MS) ? this.started.count : 0;
  }

  close(): void {
    clearInterval(this.refresher);
  }

  private async reserve(): Promise<Admission> {
    try {
      return await this.deps.store.reserve();
    } catch (error) {
      this.deps.logger.warn({ err: error }, 'shared quota unavailable');
      throw new QuotaUnavailableError(error);
    }
  }

  /**
   * Sleeps until a reserved slot, refreshing the shared backoff meanwhile; with `lend`, the slot
   * is lent (LentSlots) while it sleeps. False when an interactive call took it meanwhile.
   */
  private async sleepToSlot(
    slot: Pick<LentSlot, 'admission' | 'due'>,
    signal: AbortSignal | undefined,
    lend: boolean,
  ): Promise<boolean> {
    const { due } = slot;
    const counted = this.deps.shared && due > this.deps.now();
    if (counted) {
      this.sleepers += 1;
      this.refresher ??= setInterval(() => {
        this.refreshBackoff();
      }, BACKOFF_REFRESH_MS).unref();
    }
    try {
      if (!lend || due <= this.deps.now()) {
        await this.deps.sleeper.until(due, signal);
        return true;
      }
      const sleep = this.deps.sleeper.wakeable(due, signal);
      const lent: LentSlot = {
        ...slot,
        taken: false,
        wake: () => {
          sleep.wake();
        },
      };
      this.lent.lend(lent);
      try {
        await sleep.woken;
      } catch (error) {
        // Taken just before the abort: the slot is the interactive call's, not ours to give back.
        if (lent.taken) return false;
        throw error;
      } finally {
        this.lent.end(lent);
      }
      return !lent.taken;
    } finally {
      if (counted && --this.sleepers === 0) {
        clearInterval(this.refresher);
        this.refresher = undefined;
      }
    }
  }

  private refreshBackoff(): void {
    if (this.refreshing || this.deps.now() - this.backoffHeardAt < BACKOFF_REFRESH_MS) return;
    this.refreshing = true;
    this.deps.store
      .backoffRemaining()
      .then((left) => {
        this.backoffHeardAt = this.deps.now();
        if (left > 0) this.backoffUntil = Math.max(this.backoffUntil, this.deps.now() + left);
      })
      .catch((error: unknown) => {
        this.deps.logger.debug({ err: error }, 'could not read the shared backoff');
      })
      .finally(() => {
        this.refreshing = false;
      });
  }

  /**
   * On waking at a slot, and again as its request leaves (Slot.confirm): false when a backoff
   * began or the call would start too late to use a paced slot, until `lateRetries` runs out.
   * Synchronous, so that nothing stands between the check and the start.
   *
   * A slot the store gave at once (not paced) is not checked: the quota is not what holds calls
   * back then, so a late start crowds no full window, and under a saturated event loop (benchmark
   * (a), a limit far above the machine's pace) every call would miss and take a new slot for
   * nothing, three times over.
   */
  canStart({ due, paced }: Pick<HeldSlot, 'due' | 'paced'>, lateRetries: LateRetries): boolean {
    const { now, lateToleranceMs } = this.deps;
    if (this.backoffUntil > now()) return false;
    if (!paced) return true;
    const lateMs = now() - due;
    if (lateMs <= lateToleranceMs) return true;
    if (lateRetries.count < MAX_LATE_RETRIES) {
      lateRetries.count += 1;
      this.lateSlots += 1;
      return false;
    }
    this.warnLate(lateMs);
    return true;
  }

  /** At most one warning per interval, with how many late starts it stands for. */
  private warnLate(lateMs: number): void {
    const { now, logger } = this.deps;
    this.lateSince.count += 1;
    if (now() - this.lateSince.at < LATE_WARNING_INTERVAL_MS) return;
    logger.warn({ lateMs, lateStarts: this.lateSince.count }, 'calls start late; event loop lagging');
    this.lateSince = { at: now(), count: 0 };
  }

  private announceSpendCap(resumeAt: number): void {
    if (resumeAt === this.announcedResumeAt) return;
    this.announcedResumeAt = resumeAt;
    this.deps.logger.warn({ resumeAt: new Date(resumeAt).toISOString() }, 'spend cap reached; calls wait');
    this.deps.onSpendCap(this.deps.operation, resumeAt);
  }

  private noteStarted(count: number | undefined): void {
    const window = Math.floor(this.deps.now() / HOUR_MS);
    if (window !== this.started.window) Object.assign(this.started, { window, count: 0 });
    this.started.count = count ?? this.started.count + 1;
  }
}
