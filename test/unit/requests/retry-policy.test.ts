import { describe, expect, it } from 'vitest';
import { decideRetry } from '../../../src/requests/retry-policy.js';

const settings = { maxAttempts: 4, baseDelayMs: 100, maxDelayMs: 1000, budgetMs: 5000 };

describe('decideRetry', () => {
  it('backs off exponentially with full jitter under the cap', () => {
    expect(decideRetry(settings, { attempts: 1, elapsedMs: 0 }, () => 0.999).delayMs).toBe(99);
    expect(decideRetry(settings, { attempts: 3, elapsedMs: 0 }, () => 0.999).delayMs).toBe(399);
    expect(
      decideRetry({ ...settings, maxAttempts: 10 }, { attempts: 8, elapsedMs: 0 }, () => 0.999).delayMs,
    ).toBe(999);
    expect(decideRetry(settings, { attempts: 2, elapsedMs: 0 }, () => 0).delayMs).toBe(0);
  });

  it('stops when the attempts are used up', () => {
    expect(decideRetry(settings, { attempts: 4, elapsedMs: 0 }).retry).toBe(false);
  });

  it('stops when the next wait would pass the time budget', () => {
    expect(decideRetry(settings, { attempts: 1, elapsedMs: 4990 }, () => 0.5)).toEqual({
      retry: false,
      delayMs: 0,
    });
  });

  it('waits at least what Retry-After asked for', () => {
    expect(decideRetry(settings, { attempts: 1, elapsedMs: 0, retryAfterMs: 2000 }, () => 0.1)).toEqual({
      retry: true,
      delayMs: 2000,
    });
  });
});
