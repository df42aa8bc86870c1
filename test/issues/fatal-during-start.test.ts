import { describe, expect, it } from 'vitest';
import type { Service } from '../../src/service/types.js';
import { startWithFatalHandler } from '../../src/service/fatal-handler.js';

describe('a fatal error while the service is still starting (issue 14, case 12)', () => {
  it('reaches the fatal handler with the real error and no service, not a ReferenceError', async () => {
    const real = new Error('broker refused the transaction');
    const seen: [Service | undefined, unknown][] = [];
    const service = { httpPort: 0 } as unknown as Service;
    const started = await startWithFatalHandler(
      (onFatal) => {
        onFatal(real);
        return Promise.resolve(service);
      },
      (current, error) => seen.push([current, error]),
    );
    expect(seen).toEqual([[undefined, real]]);
    expect(started).toBe(service);
  });

  it('hands the started service to a fatal error reported after start', async () => {
    const seen: (Service | undefined)[] = [];
    const service = { httpPort: 0 } as unknown as Service;
    let report: ((error: unknown) => void) | undefined;
    await startWithFatalHandler(
      (onFatal) => {
        report = onFatal;
        return Promise.resolve(service);
      },
      (current) => seen.push(current),
    );
    report?.(new Error('later'));
    expect(seen).toEqual([service]);
  });
});
