import { randomUUID } from 'node:crypto';

/**
 * Dry runs held until they are confirmed. A confirmed redrive sends the dead letters its dry
 * run listed (by coordinates) and no other: read again, the same filter and window could also
 * take a dead letter whose transaction was still open while the dry run read, one more than the
 * "Confirm: redrive N" that was clicked. A plan is taken once, so a second click or a resent
 * form finds nothing to run.
 */
export interface HeldPlan<Choice> {
  choice: Choice;
  /** `<topic>/<partition>/<offset>` of each dead letter the dry run would redrive. */
  coordinates: readonly string[];
}

/** How long a dry run may wait for its confirmation. */
export const PLAN_TTL_MS = 15 * 60_000;
/** Dry runs held at most; past them the oldest goes. */
export const HELD_PLANS = 20;

export class HeldPlans<Choice> {
  private readonly plans = new Map<string, HeldPlan<Choice> & { heldAt: number }>();

  constructor(private readonly now: () => number) {}

  hold(plan: HeldPlan<Choice>): string {
    const id = randomUUID();
    this.plans.set(id, { ...plan, heldAt: this.now() });
    for (const [held, { heldAt }] of this.plans) {
      if (this.plans.size > HELD_PLANS || this.now() - heldAt >= PLAN_TTL_MS) this.plans.delete(held);
    }
    return id;
  }

  /** The plan held under `id`, once; undefined when unknown, taken already or too old. */
  take(id: string | undefined): HeldPlan<Choice> | undefined {
    if (id === undefined) return undefined;
    const plan = this.plans.get(id);
    this.plans.delete(id);
    if (!plan || this.now() - plan.heldAt >= PLAN_TTL_MS) return undefined;
    return { choice: plan.choice, coordinates: plan.coordinates };
  }
}
