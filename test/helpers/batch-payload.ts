import type { EachBatchPayload } from 'kafkajs';

/**
 * What kafkajs hands eachBatch around `batch`, with its other functions doing nothing (running,
 * never stale); `overrides` replaces the ones a test watches.
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
    uncommittedOffsets: () => ({ topics: [] }),
    isRunning: () => true,
    isStale: () => false,
    ...overrides,
  };
}
