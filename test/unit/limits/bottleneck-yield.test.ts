import Bottleneck from 'bottleneck';
import { afterEach, describe, expect, it, vi } from 'vitest';
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

  describe('a job that has its slot', () => {
    afterEach(() => {
      vi.useRealTimers();
    });

    it('starts with no timer', async () => {
      useMicrotaskYield();
      // Timers frozen: a job that waited for one would never start.
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
      const limiter = new Bottleneck({ maxConcurrent: 2 });
      let ran = 0;
      const jobs = Array.from({ length: 5 }, () =>
        limiter.schedule(() => {
          ran += 1;
          return Promise.resolve();
        }),
      );
      for (let turn = 0; turn < 20 && ran < 5; turn += 1)
        await new Promise((resolve) => setImmediate(resolve));
      expect(ran).toBe(5);
      await Promise.all(jobs);
      vi.useRealTimers();
      await limiter.stop();
    });

    it('does not start once stop() dropped it', async () => {
      useMicrotaskYield();
      const limiter = new Bottleneck({ maxConcurrent: 1 });
      let ran = false;
      const job = limiter.schedule({ id: 'dropped' }, () => {
        ran = true;
        return Promise.resolve();
      });
      const dropped = expect(job).rejects.toThrow('limiter closed');
      // bottleneck's Status enum exists in its types only; at run time the state is its name.
      const status = (): string => limiter.jobStatus('dropped');
      // Microtasks only: the job has its slot and waits for its start, in the same turn.
      for (let i = 0; i < 100 && status() !== 'RUNNING'; i += 1) await Promise.resolve();
      expect(status()).toBe('RUNNING');
      await limiter.stop({ dropWaitingJobs: true, dropErrorMessage: 'limiter closed' });
      await dropped;
      await new Promise((resolve) => setImmediate(resolve));
      expect(ran).toBe(false);
    });
  });
});
