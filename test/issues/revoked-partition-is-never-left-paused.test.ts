/**
 * A partition revoked while paused was never read again. Revoking dropped the partition's pause
 * reasons, but the consumer kept the partition paused: after a refused commit (the partition
 * still ours) or a rebalance that took it away and gave it back, nothing resumed it, and its
 * requests were never answered. A revoked partition is now resumed, and the pauses its
 * operation still wants (open breaker, reached spend cap) are set again as it opens anew.
 */
import { describe, expect, it } from 'vitest';
import { OPERATION, runtimeHarness, type HeldBatch } from '../helpers/runtime-harness.js';

function fetched(batch: HeldBatch | undefined): HeldBatch {
  if (!batch) throw new Error('the partition is paused');
  return batch;
}

/** Two requests taken on partition 0, their commit refused by the group. */
async function refusedWhile(pause: (h: ReturnType<typeof runtimeHarness>) => void) {
  const h = runtimeHarness();
  await h.runtime.start();
  await h.join([0]);
  h.publish(0, 2);
  await h.deliver(fetched(h.fetch(0)));
  const commit = await h.nextCommit();
  pause(h);
  expect(h.isPaused(0)).toBe(true);
  commit.refuse('ERR_ILLEGAL_GENERATION');
  await new Promise((resolve) => setTimeout(resolve, 20));
  return h;
}

/** Fetches and commits until the partition's requests are answered (or nothing is fetched). */
async function drain(h: ReturnType<typeof runtimeHarness>, partition: number, expected: number) {
  for (let round = 0; round < 5 && h.answered() < expected; round += 1) {
    const batch = h.fetch(partition);
    if (batch && batch.messages.length > 0) await h.deliver(batch);
    if (await h.hasCommit()) (await h.nextCommit()).accept();
  }
}

describe('a partition revoked while paused', () => {
  it('stays paused while the breaker is open after a refused commit, and is read again once it closes', async () => {
    const h = await refusedWhile((harness) => {
      const breaker = harness.breakerFor(OPERATION);
      for (let i = 0; i < 3; i += 1) breaker.recordFailure();
    });
    // Read again, and paused again as it opens: the breaker is still open.
    const batch = h.fetch(0);
    if (batch) await h.deliver(batch);
    expect(h.isPaused(0)).toBe(true);
    expect(await h.hasCommit()).toBe(false);

    h.breakerFor(OPERATION).recordSuccess();
    expect(h.isPaused(0)).toBe(false);
    await drain(h, 0, 2);
    expect(h.answered()).toBe(2);
    expect(h.committedOffset(0)).toBe(2);
    await h.runtime.stop();
  });

  it('stays paused while the spend cap is reached after a refused commit, and is read again at the next hour', async () => {
    const h = await refusedWhile((harness) => {
      harness.runtime.pauseOperationUntil(OPERATION, Date.now() + 300);
    });
    const batch = h.fetch(0);
    if (batch) await h.deliver(batch);
    expect(h.isPaused(0)).toBe(true);

    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(h.isPaused(0)).toBe(false);
    await drain(h, 0, 2);
    expect(h.answered()).toBe(2);
    await h.runtime.stop();
  });

  it('is read again when a rebalance gives back a partition it took away with a full window', async () => {
    const h = runtimeHarness({ partitionWindow: 2 });
    await h.runtime.start();
    await h.join([0, 1]);
    h.publish(1, 3);
    await h.deliver(fetched(h.fetch(1)));
    // Two requests in the window and their commit under way: the partition is paused.
    const commit = await h.nextCommit();
    expect(h.isPaused(1)).toBe(true);

    // The rebalance revokes partition 1; the revocation waits for the round under way, which
    // the group refuses (its generation is over).
    const revoked = h.join([0]);
    commit.refuse('ERR_REBALANCE_IN_PROGRESS');
    await revoked;
    await h.join([0, 1]);

    expect(h.isPaused(1)).toBe(false);
    await drain(h, 1, 3);
    expect(h.answered()).toBe(3);
    expect(h.committedOffset(1)).toBe(3);
    await h.runtime.stop();
  });
});
