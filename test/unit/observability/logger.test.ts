import { PassThrough } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { createLogger, lazyChild } from '../../../src/observability/logger.js';

function capture() {
  const stream = new PassThrough();
  const lines: Record<string, unknown>[] = [];
  stream.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n').filter(Boolean))
      lines.push(JSON.parse(line) as Record<string, unknown>);
  });
  return { logger: createLogger({ level: 'info', destination: stream }), lines };
}

describe('logger', () => {
  it('makes a lazy child only on its first line, once, with its bindings', async () => {
    const { logger, lines } = capture();
    const bindings = vi.fn(() => ({ topic: 't', partition: 2, offset: '41' }));
    const child = vi.spyOn(logger, 'child');
    const log = lazyChild(logger, bindings);
    expect(bindings).not.toHaveBeenCalled();
    expect(child).not.toHaveBeenCalled();
    log.warn({ requestId: 'r-1' }, 'first');
    log.error('second');
    await new Promise((resolve) => setImmediate(resolve));
    expect(bindings).toHaveBeenCalledTimes(1);
    expect(child).toHaveBeenCalledTimes(1);
    expect(lines).toMatchObject([
      { topic: 't', partition: 2, offset: '41', requestId: 'r-1', msg: 'first', level: 40 },
      { topic: 't', partition: 2, offset: '41', msg: 'second', level: 50 },
    ]);
  });

  it('redacts personal data in a lazy child line as in any other', async () => {
    const { logger, lines } = capture();
    lazyChild(logger, () => ({ offset: '1' })).info({ params: { taxId: '12345678909' } }, 'x');
    await new Promise((resolve) => setImmediate(resolve));
    expect(JSON.stringify(lines)).not.toContain('12345678909');
  });
});
