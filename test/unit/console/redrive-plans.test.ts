import { describe, expect, it } from 'vitest';
import { HELD_PLANS, HeldPlans, PLAN_TTL_MS } from '../../../src/console/redrive-plans.js';

describe('dry runs held for their confirmation', () => {
  const plan = (n: number) => ({ choice: `choice-${String(n)}`, coordinates: [`p.errors/0/${String(n)}`] });

  it('gives a plan back once, as it was held', () => {
    const plans = new HeldPlans<string>(() => 0);
    const id = plans.hold(plan(1));
    expect(plans.take(id)).toEqual(plan(1));
    expect(plans.take(id)).toBeUndefined();
    expect(plans.take(undefined)).toBeUndefined();
    expect(plans.take('no-such-plan')).toBeUndefined();
  });

  it('forgets a plan once it is 15 minutes old', () => {
    let now = 0;
    const plans = new HeldPlans<string>(() => now);
    const kept = plans.hold(plan(1));
    const lapsed = plans.hold(plan(2));
    now = PLAN_TTL_MS - 1;
    expect(plans.take(kept)).toEqual(plan(1));
    now = PLAN_TTL_MS;
    expect(plans.take(lapsed)).toBeUndefined();
  });

  it('holds at most twenty, dropping the oldest', () => {
    const plans = new HeldPlans<string>(() => 0);
    const ids = Array.from({ length: HELD_PLANS + 1 }, (_, i) => plans.hold(plan(i)));
    expect(plans.take(ids[0])).toBeUndefined();
    expect(plans.take(ids[1])).toEqual(plan(1));
    expect(plans.take(ids[HELD_PLANS])).toEqual(plan(HELD_PLANS));
  });
});
