import { describe, expect, it } from 'vitest';
import { NewestRows, type DeadLetterRow } from '../../../src/console/dead-letters.js';

const row = (second: number): DeadLetterRow => ({
  at: new Date(Date.UTC(2026, 10, 21, 10, 0, second)).toISOString(),
  partition: second % 3,
  offset: String(second),
  requestId: `r-${second}`,
  operation: 'vehicle',
  kind: 'timeout',
  reason: 'timed out',
  key: null,
});

describe('the dead letters a window lists', () => {
  it('keeps the newest, newest first, and counts every match', () => {
    const kept = new NewestRows(10);
    // Read partition by partition, so not in time order.
    for (const partition of [0, 1, 2])
      for (let second = partition; second < 45; second += 3) kept.add(row(second));
    expect(kept.matched).toBe(45);
    expect(kept.newestFirst().map((r) => r.requestId)).toEqual(
      Array.from({ length: 10 }, (_, i) => `r-${44 - i}`),
    );
  });

  it('lists them all when they are fewer', () => {
    const kept = new NewestRows(10);
    kept.add(row(2));
    kept.add(row(1));
    expect(kept.newestFirst().map((r) => r.requestId)).toEqual(['r-2', 'r-1']);
    expect(kept.matched).toBe(2);
  });
});
