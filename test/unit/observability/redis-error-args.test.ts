import { describe, expect, it } from 'vitest';
import { withoutCommandArgs } from '../../../src/observability/redis-client.js';

describe('withoutCommandArgs', () => {
  it('drops command arguments at any depth, in arrays and causes, and keeps the command names', () => {
    const queued = Object.assign(new Error('OOM command not allowed'), {
      command: { name: 'set', args: ['pending:r1', 'UVdFMUQyMw=='] },
    });
    const error = Object.assign(new Error('EXECABORT Transaction discarded'), {
      previousErrors: [queued],
      cause: { deeper: [{ args: ['52998224725'] }] },
    });
    const text = JSON.stringify(withoutCommandArgs(error));
    expect(text).toContain('EXECABORT');
    expect(text).toContain('"name":"set"');
    expect(text).not.toContain('pending:r1');
    expect(text).not.toContain('UVdFMUQyMw==');
    expect(text).not.toContain('52998224725');
  });

  it('is safe on cycles and bounded on depth', () => {
    const cyclic: Record<string, unknown> = { args: ['secret'] };
    cyclic.self = cyclic;
    expect(JSON.stringify(withoutCommandArgs(cyclic))).toBe('{"self":"[circular]"}');
    let deep: Record<string, unknown> = { args: ['secret'] };
    for (let i = 0; i < 1000; i++) deep = { next: deep };
    const text = JSON.stringify(withoutCommandArgs(deep));
    expect(text).toContain('[too deep]');
    expect(text).not.toContain('secret');
  });
});
