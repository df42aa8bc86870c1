import { OPERATIONS, type Operation } from '../../../src/contract/operations.js';
import type { OperationLimitSettings } from '../../../src/limits/index.js';
import { createLogger } from '../../../src/observability/logger.js';

export const silentLogger = createLogger({ level: 'silent' });

export function settingsWith(
  overrides: Partial<Record<Operation, OperationLimitSettings>> = {},
  base: OperationLimitSettings = { ratePerSecond: 1000, maxConcurrent: 10 },
): Record<Operation, OperationLimitSettings> {
  const entries = OPERATIONS.map((operation) => [operation, overrides[operation] ?? base] as const);
  return Object.fromEntries(entries) as Record<Operation, OperationLimitSettings>;
}

/** Most starts that fall in any window [t, t + windowMs). */
export function maxInWindow(starts: readonly number[], windowMs: number): number {
  const sorted = [...starts].sort((a, b) => a - b);
  let best = 0;
  for (let i = 0, j = 0; j < sorted.length; j++) {
    while (sorted[j]! - sorted[i]! >= windowMs) i++;
    best = Math.max(best, j - i + 1);
  }
  return best;
}

export function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve: () => void = () => undefined;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}
