import { describe, expect, it } from 'vitest';
import { abortableSleep } from '../../src/retry.js';

describe('abortableSleep', () => {
  it('resolves after the delay when nothing aborts it', async () => {
    await expect(abortableSleep(1, new AbortController().signal)).resolves.toBeUndefined();
  });

  it('rejects with the abort reason when aborted while waiting', async () => {
    const controller = new AbortController();
    const sleeping = abortableSleep(60_000, controller.signal);
    controller.abort(new Error('shutdown'));
    await expect(sleeping).rejects.toThrow('shutdown');
  });

  it('rejects at once when the signal was already aborted', async () => {
    const controller = new AbortController();
    controller.abort('not an error');
    await expect(abortableSleep(60_000, controller.signal)).rejects.toThrow('aborted');
  });
});
