import { describe, expect, it, vi } from 'vitest';
import { Closers } from '../../../src/service/closers.js';

describe('Closers', () => {
  it('closes the parts in the reverse order of their adding', async () => {
    const closed: string[] = [];
    const closers = new Closers({ warn: vi.fn() });
    for (const name of ['tracing', 'redis', 'vendor', 'listener'])
      closers.add(name, () => Promise.resolve(closed.push(name)));
    await closers.closeAll();
    expect(closed).toEqual(['listener', 'vendor', 'redis', 'tracing']);
  });

  it('logs a failing close with its part name and still closes the others', async () => {
    const closed: string[] = [];
    const warn = vi.fn();
    const closers = new Closers({ warn });
    closers.add('first', () => Promise.resolve(closed.push('first')));
    closers.add('stuck', () => Promise.reject(new Error('socket hang up')));
    closers.add('last', () => Promise.resolve(closed.push('last')));
    await closers.closeAll();
    expect(closed).toEqual(['last', 'first']);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn).toHaveBeenCalledWith(expect.objectContaining({ part: 'stuck' }), 'close failed');
  });

  it('aborts its signal as closing begins, before the first part closes', async () => {
    const closers = new Closers({ warn: vi.fn() });
    let abortedAtClose: boolean | undefined;
    closers.add('topics', () => Promise.resolve((abortedAtClose = closers.signal.aborted)));
    expect(closers.signal.aborted).toBe(false);
    await closers.closeAll();
    expect(abortedAtClose).toBe(true);
  });

  it('closes each part once when closeAll runs again', async () => {
    const close = vi.fn(() => Promise.resolve());
    const closers = new Closers({ warn: vi.fn() });
    closers.add('redis', close);
    await closers.closeAll();
    await closers.closeAll();
    expect(close).toHaveBeenCalledTimes(1);
  });

  it('closes a part added after a first closeAll', async () => {
    const closers = new Closers({ warn: vi.fn() });
    await closers.closeAll();
    const close = vi.fn(() => Promise.resolve());
    closers.add('late', close);
    await closers.closeAll();
    expect(close).toHaveBeenCalledOnce();
  });
});
