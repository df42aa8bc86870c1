import { describe, expect, it } from 'vitest';
import { ChildSignals } from '../../../src/consumers/child-signals.js';

describe('ChildSignals', () => {
  it('aborts every live child with the parent reason when the parent aborts', () => {
    const signals = new ChildSignals();
    const parent = new AbortController();
    const first = signals.childOf(parent.signal);
    const second = signals.childOf(parent.signal);
    const reason = new Error('partition revoked');
    parent.abort(reason);
    expect(first.signal.aborted).toBe(true);
    expect(second.signal.reason).toBe(reason);
  });

  it('leaves a released child alone when the parent aborts later', () => {
    const signals = new ChildSignals();
    const parent = new AbortController();
    const done = signals.childOf(parent.signal);
    const running = signals.childOf(parent.signal);
    done.release();
    parent.abort(new Error('shutdown'));
    expect(done.signal.aborted).toBe(false);
    expect(running.signal.aborted).toBe(true);
  });

  it('hands out an aborted child for a parent aborted already', () => {
    const signals = new ChildSignals();
    const parent = new AbortController();
    parent.abort(new Error('shutdown'));
    const child = signals.childOf(parent.signal);
    expect(child.signal.aborted).toBe(true);
    expect((child.signal.reason as Error).message).toBe('shutdown');
  });

  it('keeps the children of different parents apart', () => {
    const signals = new ChildSignals();
    const revoked = new AbortController();
    const kept = new AbortController();
    const a = signals.childOf(revoked.signal);
    const b = signals.childOf(kept.signal);
    revoked.abort(new Error('partition revoked'));
    expect(a.signal.aborted).toBe(true);
    expect(b.signal.aborted).toBe(false);
  });
});
