import Bottleneck from 'bottleneck';
import { describe, expect, it } from 'vitest';
import { isMicrotaskYieldInUse, useMicrotaskYield } from '../../../src/limits/bottleneck-yield.js';

describe('bottleneck yield patch', () => {
  it('replaces the 1 ms timer yield by a microtask and keeps concurrency and order', async () => {
    useMicrotaskYield();
    expect(isMicrotaskYieldInUse()).toBe(true);
    const limiter = new Bottleneck({ maxConcurrent: 2 });
    const store = (limiter as unknown as { _store: { yieldLoop(): Promise<void> } })._store;
    expect(store.yieldLoop.toString()).not.toContain('setTimeout');
    let running = 0;
    let most = 0;
    const order: number[] = [];
    await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        limiter.schedule(async () => {
          running += 1;
          most = Math.max(most, running);
          await new Promise((resolve) => setImmediate(resolve));
          order.push(i);
          running -= 1;
        }),
      ),
    );
    expect(most).toBe(2);
    expect(order).toHaveLength(50);
    expect(order.slice(0, 2).sort()).toEqual([0, 1]);
    await limiter.stop();
  });

  it('yields before a job starts rather than running it synchronously', async () => {
    useMicrotaskYield();
    const limiter = new Bottleneck({ maxConcurrent: 1 });
    let ran = false;
    const job = limiter.schedule(() => {
      ran = true;
      return Promise.resolve();
    });
    expect(ran).toBe(false);
    await job;
    expect(ran).toBe(true);
    await limiter.stop();
  });

  it('lets a job submitted behind many start without a turn of the event loop per job', async () => {
    useMicrotaskYield();
    const limiter = new Bottleneck({ maxConcurrent: 1000 });
    let turns = 0;
    let counting = true;
    const tick = (): void => {
      turns += 1;
      if (counting) setImmediate(tick);
    };
    setImmediate(tick);
    await Promise.all(Array.from({ length: 500 }, () => limiter.schedule(() => Promise.resolve())));
    counting = false;
    // With a macrotask yield each of the 500 submissions waited for its own turn.
    expect(turns).toBeLessThan(50);
    await limiter.stop();
  });
});
