import { describe, expect, it } from 'vitest';
import { KeyScheduler } from '../../../src/consumers/key-scheduler.js';

const tick = (ms = 1) => new Promise((resolve) => setTimeout(resolve, ms));

describe('KeyScheduler', () => {
  it('runs tasks of one key in submission order, one at a time', async () => {
    const scheduler = new KeyScheduler(10, (e: unknown) => {
      throw e;
    });
    const log: string[] = [];
    let running = 0;
    let maxRunning = 0;
    for (let i = 0; i < 5; i += 1) {
      scheduler.submit('k', 'p0', async () => {
        running += 1;
        maxRunning = Math.max(maxRunning, running);
        await tick(5 - i);
        log.push(`k${i}`);
        running -= 1;
      });
    }
    await scheduler.idle();
    expect(log).toEqual(['k0', 'k1', 'k2', 'k3', 'k4']);
    expect(maxRunning).toBe(1);
  });

  it('runs different keys concurrently up to the limit', async () => {
    const scheduler = new KeyScheduler(3, (e: unknown) => {
      throw e;
    });
    let running = 0;
    let maxRunning = 0;
    for (let i = 0; i < 12; i += 1) {
      scheduler.submit(`key-${i}`, 'p0', async () => {
        running += 1;
        maxRunning = Math.max(maxRunning, running);
        await tick(3);
        running -= 1;
      });
    }
    expect(scheduler.inFlight).toBe(3);
    expect(scheduler.queued).toBe(9);
    await scheduler.idle();
    expect(maxRunning).toBe(3);
  });

  it('lets a slow key not block other keys', async () => {
    const scheduler = new KeyScheduler(4, (e: unknown) => {
      throw e;
    });
    const done: string[] = [];
    let release!: () => void;
    scheduler.submit(
      'slow',
      'p0',
      () =>
        new Promise<void>((resolve) => {
          release = () => {
            done.push('slow');
            resolve();
          };
        }),
    );
    scheduler.submit('slow', 'p0', () => {
      done.push('slow-2');
      return Promise.resolve();
    });
    for (const key of ['a', 'b', 'c'])
      scheduler.submit(key, 'p0', () => {
        done.push(key);
        return Promise.resolve();
      });
    await tick(5);
    expect(done).toEqual(['a', 'b', 'c']);
    release();
    await scheduler.idle();
    expect(done).toEqual(['a', 'b', 'c', 'slow', 'slow-2']);
  });

  it('drops queued tasks of a revoked scope but lets running ones finish', async () => {
    const scheduler = new KeyScheduler(1, (e: unknown) => {
      throw e;
    });
    const ran: string[] = [];
    scheduler.submit('a', 'p0', async () => {
      await tick(5);
      ran.push('a0');
    });
    scheduler.submit('a', 'p0', () => {
      ran.push('a1');
      return Promise.resolve();
    });
    scheduler.submit('b', 'p1', () => {
      ran.push('b0');
      return Promise.resolve();
    });
    scheduler.submit(undefined, 'p0', () => {
      ran.push('free');
      return Promise.resolve();
    });
    expect(scheduler.dropQueued((scope) => scope === 'p0')).toBe(2);
    await scheduler.idle();
    expect(ran).toEqual(['a0', 'b0']);
    expect(scheduler.queued).toBe(0);
  });

  it('reports a failing task and goes on with the next one of the key', async () => {
    const errors: unknown[] = [];
    const scheduler = new KeyScheduler(2, (e) => errors.push(e));
    const ran: number[] = [];
    scheduler.submit('k', 'p', () => Promise.reject(new Error('boom')));
    scheduler.submit('k', 'p', () => {
      ran.push(2);
      return Promise.resolve();
    });
    await scheduler.idle();
    expect(errors).toHaveLength(1);
    expect(ran).toEqual([2]);
  });
});
