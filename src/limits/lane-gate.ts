import type { Lane } from '../contract/operations.js';

/** Bottleneck priorities (0 runs first): interactive, then bulk; bulk short of its share first. */
export const LANE_PRIORITY = { interactive: 1, bulk: 9, bulkShort: 0 } as const;

/** The window over which each lane's share of the slots taken is counted. */
const SHARE_WINDOW_MS = 1_000;

export interface LaneGateSettings {
  /** LANE_BULK_MIN_SHARE: the fraction of the slots bulk calls get while they wait. */
  bulkMinShare: number;
  /**
   * Bulk calls handed on that hold no quota slot yet, or sleep towards one: how far bulk may
   * reserve ahead of an interactive call that comes later (see OperationLimiter).
   */
  bulkLookahead: number;
}

/** A call waiting for its lane's turn; `live()` false once it was aborted meanwhile. */
export interface GateEntry {
  live(): boolean;
  /** Ends the call's waiting with an error (the limiter closed). */
  fail(error: unknown): void;
  /** Hands the call on to the local scheduler at this bottleneck priority. */
  hand(priority: number): void;
}

export interface LaneFigures {
  /** Calls accepted and not yet holding a quota slot. */
  queued: number;
  /** Milliseconds the oldest of them has waited (0 when none). */
  oldestWaitMs: number;
}

interface Waiting {
  at: number;
}

/**
 * Strict priority between one operation's lanes, ahead of the local scheduler and the shared
 * quota. An interactive call is handed on at once, at a bottleneck priority above any bulk
 * call's. A bulk call is handed on only while no interactive call of this replica waits for a
 * slot, and only while fewer than `bulkLookahead` bulk calls wait for or sleep towards theirs:
 * the quota hands slots out in order of asking, so what bounds how long an interactive call
 * waits behind bulk is how many bulk slots were asked for ahead of it. When bulk calls wait but
 * got less than `bulkMinShare` of the slots taken in the last second, one is handed on anyway,
 * first in the queue, within the same lookahead: bulk is never starved.
 */
export class LaneGate {
  private readonly queues: Record<Lane, GateEntry[]> = { interactive: [], bulk: [] };
  /** Per lane, every call accepted and not yet holding a slot, in arrival order. */
  private readonly waiting: Record<Lane, Map<object, Waiting>> = { interactive: new Map(), bulk: new Map() };
  /** Bulk calls handed on, not yet holding a slot (nor given up). */
  private bulkHanded = 0;
  /** Slots taken in the share window, oldest first, and how many of them were bulk. */
  private readonly taken: { at: number; lane: Lane }[] = [];
  private takenBulk = 0;

  constructor(
    private readonly settings: LaneGateSettings,
    private readonly now: () => number,
  ) {}

  /** Accepts a call of `lane`; `ticket` is the handle its later steps report with. */
  enqueue(lane: Lane, ticket: object, entry: GateEntry): void {
    this.waiting[lane].set(ticket, { at: this.now() });
    if (lane === 'interactive') entry.hand(LANE_PRIORITY.interactive);
    else {
      this.queues.bulk.push(entry);
      this.dispatch();
    }
  }

  /**
   * The call of `ticket` no longer waits (once per ticket; later reports are ignored): it took
   * its quota slot (`tookSlot`), or stopped without one (aborted, failed, closed). The limiter
   * reports an interactive call as soon as the quota answered with its slot (from then on no
   * bulk call asks ahead of it), a bulk call only once its slot has come (so `bulkLookahead`
   * also bounds the bulk slots reserved ahead and slept towards).
   */
  settled(lane: Lane, ticket: object, tookSlot: boolean, handed: boolean): void {
    if (!this.waiting[lane].delete(ticket)) return;
    if (lane === 'bulk' && handed) this.bulkHanded -= 1;
    if (tookSlot) this.noteTaken(lane);
    this.dispatch();
  }

  figures(lane: Lane): LaneFigures {
    const first = this.waiting[lane].values().next();
    return {
      queued: this.waiting[lane].size,
      oldestWaitMs: first.done ? 0 : Math.max(0, this.now() - first.value.at),
    };
  }

  /** Fails every call not yet handed on (the limiter closed). */
  drain(error: unknown): void {
    for (const entry of this.queues.bulk.splice(0)) entry.fail(error);
  }

  private dispatch(): void {
    const queue = this.queues.bulk;
    while (queue.length > 0 && this.bulkHanded < this.settings.bulkLookahead) {
      const short = this.bulkShort();
      if (!short && this.interactiveWaits()) return;
      const entry = queue.shift();
      if (!entry?.live()) continue;
      this.bulkHanded += 1;
      entry.hand(short ? LANE_PRIORITY.bulkShort : LANE_PRIORITY.bulk);
    }
  }

  private interactiveWaits(): boolean {
    return this.waiting.interactive.size > 0;
  }

  /** Bulk got less than its share of the slots taken in the last second. */
  private bulkShort(): boolean {
    this.forgetOld();
    if (this.taken.length === 0) return false;
    return this.takenBulk < this.settings.bulkMinShare * this.taken.length;
  }

  private noteTaken(lane: Lane): void {
    this.taken.push({ at: this.now(), lane });
    if (lane === 'bulk') this.takenBulk += 1;
    this.forgetOld();
  }

  private forgetOld(): void {
    const horizon = this.now() - SHARE_WINDOW_MS;
    let drop = 0;
    for (; drop < this.taken.length; drop++) {
      const oldest = this.taken[drop];
      if (!oldest || oldest.at >= horizon) break;
      if (oldest.lane === 'bulk') this.takenBulk -= 1;
    }
    if (drop > 0) this.taken.splice(0, drop);
  }
}
