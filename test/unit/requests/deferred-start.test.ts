import { describe, expect, it, vi } from 'vitest';
import { DeferredStart } from '../../../src/requests/deferred-start.js';

describe('DeferredStart', () => {
  it('runs its work on the first start only, and waiting on it starts nothing', async () => {
    const work = vi.fn(() => Promise.resolve(7));
    const deferred = new DeferredStart(work);
    const waiting = deferred.promise.then((value) => value * 2);
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(work).not.toHaveBeenCalled();
    expect(deferred.started).toBe(false);

    expect(deferred.start()).toBe(deferred.promise);
    void deferred.start();
    expect(work).toHaveBeenCalledTimes(1);
    expect(deferred.started).toBe(true);
    await expect(waiting).resolves.toBe(14);
  });

  it('starts the work synchronously, within the caller’s tick', () => {
    const order: string[] = [];
    const deferred = new DeferredStart(() => {
      order.push('work');
      return Promise.resolve();
    });
    void deferred.start();
    order.push('after start');
    expect(order).toEqual(['work', 'after start']);
  });

  it('rejects its promise when the work throws or rejects', async () => {
    const throwing = new DeferredStart<number>(() => {
      throw new Error('thrown');
    });
    await expect(throwing.start()).rejects.toThrow('thrown');
    const rejecting = new DeferredStart<number>(() => Promise.reject(new Error('rejected')));
    await expect(rejecting.start()).rejects.toThrow('rejected');
  });
});
