import type { Lane } from '../contract/operations.js';

/** Bottleneck priorities (0 runs first): interactive, then bulk; bulk short of its share first. */
export const LANE_PRIORITY = { interactive: 1, bulk: 9, bulkShort: 0 } as const;

/** The window over which each lane's share of the slots taken is counted. */
const SHARE_WINDOW_MS = 1_000;

export interface LaneGateSettings {
  /** LANE_BULK_MIN_SHARE: the fraction of the slots bulk calls get while they wait. */
  bulkMinShare: number;
  /**
   * Calls of one lane handed on that hold no quota slot yet, or sleep towards one: how far a
   * lane may reserve ahead (see OperationLimiter).
   */
  lookahead: number;
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

interface Place {
  ticket: object;
  lane: Lane;
  at: number;
  entry: GateEntry;
}

/**
 * Strict priority between one operation's lanes, ahead of the local scheduler and the shared
 * quota. Each lane hands calls on while fewer than `lookahead` of its calls wait for or sleep
 * towards their slot (interactive calls only while bulk calls wait): the quota hands slots out
 * in order of asking, so that bounds how far either lane reserves ahead of a call of the other.
 *
 * An interactive call is handed on first, at a bottleneck priority above any bulk call's. A
 * bulk call is handed on only while no interactive call of this replica waits for a slot;
 * when bulk calls wait but got less than `bulkMinShare` of the slots taken in the last second,
 * one is handed on anyway, first in the queue (priority `bulkShort`): bulk is never starved,
 * even by interactive calls that alone would fill the limit.
 */
export class LaneGate {
  private readonly queues: Record<Lane, Place[]> = { interactive: [], bulk: [] };
  /** Per lane, every call accepted and not yet answered with a slot, in arrival order. */
  private readonly waiting: Record<Lane, Map<object, Place>> = { interactive: new Map(), bulk: new Map() };
  /** Per lane, the calls handed on and not yet at their slot (nor given up). */
  private readonly ahead: Record<Lane, Set<object>> = { interactive: new Set(), bulk: new Set() };
  /** Slots taken in the share window, oldest first, and how many of them were bulk. */
  private readonly taken: { at: number; lane: Lane }[] = [];
  private takenBulk = 0;

  constructor(
    private readonly settings: LaneGateSettings,
    private readonly now: () => number,
  ) {}

  /** Accepts a call of `lane`; `ticket` is the handle its later steps report with. */
  enqueue(lane: Lane, ticket: object, entry: GateEntry): void {
    const place: Place = { ticket, lane, at: this.now(), entry };
    this.waiting[lane].set(ticket, place);
    this.queues[lane].push(place);
    this.dispatch();
  }

  /**
   * The quota answered the call of `ticket` with its slot: from then on no call of the other
   * lane is held back for it, and the slot counts towards its lane's share.
   */
  reserved(lane: Lane, ticket: object): void {
    const place = this.waiting[lane].get(ticket);
    if (!place) return;
    this.waiting[lane].delete(ticket);
    this.noteTaken(lane);
    this.dispatch();
  }

  /**
   * The call of `ticket` is at its slot (`tookSlot`), or stopped without one (aborted, failed,
   * closed). Once per ticket; later reports are ignored.
   */
  settled(lane: Lane, ticket: object, tookSlot: boolean): void {
    const place = this.waiting[lane].get(ticket);
    const wasAhead = this.ahead[lane].delete(ticket);
    if (place) {
      this.waiting[lane].delete(ticket);
      if (tookSlot) this.noteTaken(lane);
    }
    if (place || wasAhead) this.dispatch();
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
    for (const lane of ['interactive', 'bulk'] as const)
      for (const place of this.queues[lane].splice(0)) place.entry.fail(error);
  }

  private dispatch(): void {
    this.handOn('interactive', () => LANE_PRIORITY.interactive);
    this.handOn('bulk', () => {
      if (this.bulkBelowShare()) return LANE_PRIORITY.bulkShort;
      return this.interactiveWaits() ? undefined : LANE_PRIORITY.bulk;
    });
  }

  /** Hands on the lane's queued calls within its lookahead, at the priority `turn` gives. */
  private handOn(lane: Lane, turn: () => number | undefined): void {
    const queue = this.queues[lane];
    const ahead = this.ahead[lane];
    // Interactive calls are held to the lookahead only while bulk calls wait: with one lane in
    // use, calls are handed on as the limiter had them before lanes.
    const bound = lane === 'bulk' || this.waiting.bulk.size > 0 ? this.settings.lookahead : Infinity;
    while (queue.length > 0 && ahead.size < bound) {
      const place = queue[0];
      if (!place) return;
      if (!place.entry.live()) {
        queue.shift();
        continue;
      }
      const priority = turn();
      if (priority === undefined) return;
      queue.shift();
      ahead.add(place.ticket);
      place.entry.hand(priority);
    }
  }

  private interactiveWaits(): boolean {
    return this.waiting.interactive.size > 0;
  }

  /** Bulk got less than its share of the slots taken in the last second. */
  private bulkBelowShare(): boolean {
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
