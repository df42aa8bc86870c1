import type { EachBatchPayload } from '../../src/kafka/client.js';

/**
 * What the client hands eachBatch around `batch`, with its other functions doing nothing
 * (running, never stale); `overrides` replaces the ones a test watches.
 */
export function eachBatchPayload(
  batch: EachBatchPayload['batch'],
  overrides: Partial<Omit<EachBatchPayload, 'batch'>> = {},
): EachBatchPayload {
  return {
    batch,
    resolveOffset: () => undefined,
    heartbeat: () => Promise.resolve(),
    pause: () => () => undefined,
    commitOffsetsIfNecessary: () => Promise.resolve(),
    isRunning: () => true,
    isStale: () => false,
    ...overrides,
  };
}
