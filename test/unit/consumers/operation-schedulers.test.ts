import { describe, expect, it } from 'vitest';
import { OperationSchedulers } from '../../../src/consumers/operation-schedulers.js';

const fail = (error: unknown): never => {
  throw error;
};

describe('one scheduler per operation', () => {
  it("never lets one operation's waiting requests take another operation's slots", async () => {
    const schedulers = new OperationSchedulers(2, fail);
    // The vehicle vendor is down: its requests wait (an open breaker) and hold their slots.
    let vendorBack!: () => void;
    const outage = new Promise<void>((resolve) => (vendorBack = resolve));
    for (let i = 0; i < 5; i++) schedulers.submit('vehicle', `v-${i}`, 'vehicle/0', () => outage);
    const answered: string[] = [];
    for (let i = 0; i < 3; i++)
      schedulers.submit('lawsuits-summary', `s-${i}`, 'summary/0', () => {
        answered.push(`s-${i}`);
        return Promise.resolve();
      });
    await new Promise((resolve) => setImmediate(resolve));
    expect(answered).toEqual(['s-0', 's-1', 's-2']);
    // The waiting operation holds only its own two slots; the rest of its requests are queued.
    expect([schedulers.inFlight, schedulers.queued]).toEqual([2, 3]);
    vendorBack();
    await schedulers.idle();
    expect([schedulers.inFlight, schedulers.queued]).toEqual([0, 0]);
  });

  it('keeps one order per key, and drops the queued tasks of a scope across operations', async () => {
    const schedulers = new OperationSchedulers(4, fail);
    const ran: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    schedulers.submit('vehicle', 'k', 'p/0', async () => {
      await held;
      ran.push('first');
    });
    schedulers.submit('vehicle', 'k', 'p/0', () => {
      ran.push('second');
      return Promise.resolve();
    });
    schedulers.submit('company-partners', 'k2', 'q/1', () => held);
    schedulers.submit('company-partners', 'k2', 'q/1', () => {
      ran.push('dropped');
      return Promise.resolve();
    });
    expect(schedulers.dropQueued((scope) => scope === 'q/1')).toBe(1);
    release();
    await schedulers.idle();
    expect(ran).toEqual(['first', 'second']);
  });
});
