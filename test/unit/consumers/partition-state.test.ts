import { describe, expect, it } from 'vitest';
import { PartitionState, type CommitWatcher } from '../../../src/consumers/partition-state.js';

/** A watcher that records what it was told. */
function watcher(): CommitWatcher & { told: string[] } {
  const told: string[] = [];
  return {
    told,
    committed: (at) => {
      told.push(`committed at ${String(at)}`);
    },
    revoked: () => {
      told.push('revoked');
    },
  };
}

describe("a partition's commit watchers", () => {
  it('are told of their commit, or, when the partition goes first, that it will not come here', () => {
    const state = new PartitionState('requests', 0, 'vehicle');
    const early = watcher();
    const late = watcher();
    state.onCommitted('4', early);
    state.onCommitted('9', late);

    state.committed('5', 1_000);
    expect(early.told).toEqual(['committed at 1000']);
    expect(late.told).toEqual([]);

    state.markRevoked();
    // Told once: a second revocation (revokeAll after a refused commit) finds none left.
    state.markRevoked();
    expect(late.told).toEqual(['revoked']);
    expect(early.told).toEqual(['committed at 1000']);
  });
});
