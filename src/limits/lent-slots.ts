import type { Admission } from './quota-store.js';

type SlotAdmission = Extract<Admission, { kind: 'slot' }>;

/** A paced slot a bulk call holds while it sleeps towards it. */
export interface LentSlot {
  admission: SlotAdmission;
  /** When the slot is due on this clock (epoch ms). */
  due: number;
  /** Set once an interactive call took the slot: its bulk call asks for a new one. */
  taken: boolean;
  /** Ends the bulk call's sleep early. */
  wake(): void;
}

/**
 * The paced slots this replica's bulk calls hold while they sleep towards them. An
 * interactive call takes the one due soonest instead of asking the quota for a slot behind
 * every slot already reserved, and its bulk call asks again: the slot is used all the same, the
 * limit is unchanged, and an interactive call waits for the next bulk slot on this replica
 * (about one spacing of the limit) instead of behind the whole bulk lookahead.
 */
export class LentSlots {
  private readonly slots = new Set<LentSlot>();

  lend(slot: LentSlot): void {
    this.slots.add(slot);
  }

  /** The bulk call's sleep ended (due, aborted or taken). */
  end(slot: LentSlot): void {
    this.slots.delete(slot);
  }

  /**
   * Takes the slot due soonest that is still ahead of `now` (a slot already due belongs to a
   * call about to wake), and wakes its bulk call; undefined when there is none.
   */
  takeSoonest(now: number): LentSlot | undefined {
    let soonest: LentSlot | undefined;
    for (const slot of this.slots)
      if (slot.due > now && (soonest === undefined || slot.due < soonest.due)) soonest = slot;
    if (soonest === undefined) return undefined;
    this.slots.delete(soonest);
    soonest.taken = true;
    soonest.wake();
    return soonest;
  }

  get size(): number {
    return this.slots.size;
  }
}
