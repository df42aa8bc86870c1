import { describe, expect, it, vi } from 'vitest';
import { QuotaAcquirer } from '../../../src/limits/quota-acquirer.js';
import type { QuotaStore } from '../../../src/limits/quota-store.js';
import { createSleeper } from '../../../src/limits/sleeper.js';
import { silentLogger } from './helpers.js';

describe('the calls a replica reports for the current hour', () => {
  it("are the store's count while the spend cap holds, even for a replica that started none", async () => {
    const now = Date.UTC(2026, 10, 21, 10, 30);
    // Another replica spent the hour's cap of 3; this one just started.
    const store: QuotaStore = {
      reserve: () =>
        Promise.resolve({ kind: 'spend-cap', waitMs: 60_000, resumeAt: now + 60_000, started: 3 }),
      release: () => Promise.resolve(),
      backoff: () => Promise.resolve(),
      backoffRemaining: () => Promise.resolve(0),
    };
    const quota = new QuotaAcquirer({
      operation: 'vehicle',
      store,
      shared: true,
      logger: silentLogger,
      now: () => now,
      sleeper: createSleeper(() => now),
      lateToleranceMs: 50,
      onSpendCap: () => undefined,
    });
    const waiting = new AbortController();
    const acquired = quota.acquire(waiting.signal).catch(() => 'aborted');
    await vi.waitFor(() => {
      expect(quota.startedThisHour()).toBe(3);
    });
    waiting.abort();
    expect(await acquired).toBe('aborted');
    quota.close();
  });
});
