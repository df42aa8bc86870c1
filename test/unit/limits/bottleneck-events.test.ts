import Bottleneck from 'bottleneck';
import { describe, expect, it } from 'vitest';
import { skipUnheardEvents } from '../../../src/limits/bottleneck-events.js';

interface WithEvents {
  Events: { trigger(name: string, ...args: unknown[]): Promise<unknown> };
}

function eventsOf(limiter: Bottleneck): WithEvents['Events'] {
  return (limiter as unknown as WithEvents).Events;
}

describe('bottleneck events nobody listens for', () => {
  it('are answered with one settled promise, without running the async wrapper', async () => {
    skipUnheardEvents();
    const limiter = new Bottleneck({ maxConcurrent: 1 });
    const first = eventsOf(limiter).trigger('queued', { args: [] });
    const second = eventsOf(limiter).trigger('done', { args: [] });
    // bottleneck's own trigger makes a new promise for every call.
    expect(first).toBe(second);
    await expect(first).resolves.toBeUndefined();
    await limiter.stop();
  });

  it('still reach a listener of the event and a listener of debug', async () => {
    skipUnheardEvents();
    const limiter = new Bottleneck({ maxConcurrent: 1 });
    const done: unknown[] = [];
    const debug: string[] = [];
    limiter.on('done', (info: unknown) => done.push(info));
    await limiter.schedule({ id: 'job-1' }, () => Promise.resolve('ok'));
    expect(done).toHaveLength(1);
    expect(done[0]).toMatchObject({ options: { id: 'job-1' } });

    limiter.on('debug', (message: string) => debug.push(message));
    await limiter.schedule({ id: 'job-2' }, () => Promise.resolve('ok'));
    expect(debug).toEqual(
      expect.arrayContaining(['Event triggered: received', 'Event triggered: executing', 'Event triggered: done']),
    );
    await limiter.stop();
  });

  it('keep a failed listener deciding retries', async () => {
    skipUnheardEvents();
    const limiter = new Bottleneck({ maxConcurrent: 1 });
    limiter.on('failed', (_error: unknown, info: { retryCount: number }) => (info.retryCount < 2 ? 0 : undefined));
    let calls = 0;
    const result = await limiter.schedule(() => {
      calls += 1;
      return calls < 3 ? Promise.reject(new Error('again')) : Promise.resolve('third time');
    });
    expect(result).toBe('third time');
    expect(calls).toBe(3);
    await limiter.stop();
  });
});
