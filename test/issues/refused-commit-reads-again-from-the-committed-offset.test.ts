/**
 * The client reads ahead of the committed offset. After a refused commit the runtime dropped the
 * partition's state and sought back to the committed offset only once a read of it had come
 * back; a batch the client had fetched before (from where it had read to) and handed over in the
 * meantime opened the state again at the committed offset and was taken: the messages between
 * the committed offset and that batch were then skipped as "already taken", and the next commit
 * went past them, requests with no outcome. The seek now happens at once, as the commit is
 * refused: a batch fetched before it is stale (the client hands out none while a seek is
 * pending), so the state opened again takes nothing from it, and the partition is read again
 * from the committed offset.
 */
import { describe, expect, it } from 'vitest';
import { runtimeHarness, type HeldBatch } from '../helpers/runtime-harness.js';

function fetched(batch: HeldBatch | undefined): HeldBatch {
  if (!batch) throw new Error('the partition is paused');
  return batch;
}

describe('a commit refused while the client has read ahead of it', () => {
  it('answers every request once, however late the offsets read after the refusal come back', async () => {
    const h = runtimeHarness();
    await h.runtime.start();
    await h.join([0]);
    h.publish(0, 5);
    await h.deliver(fetched(h.fetch(0)));
    (await h.nextCommit()).accept();
    expect(h.committedOffset(0)).toBe(5);

    h.publish(0, 5);
    await h.deliver(fetched(h.fetch(0)));
    const refused = await h.nextCommit();
    // The client fetched on from offset 10 while offsets 5 to 9 were being committed.
    h.publish(0, 5);
    const readAhead = fetched(h.fetch(0));
    expect(readAhead.fetchedOffset).toBe('10');

    // The group's coordinator is busy with the rebalance that refused the commit: the first
    // read of committed offsets after it is retried and answers late.
    h.slowNextRead(300);
    refused.refuse('ERR_REBALANCE_IN_PROGRESS');
    await new Promise((resolve) => setTimeout(resolve, 20));
    await h.deliver(readAhead);
    // The client fetches on, and the group's next generation keeps the partition here (with the
    // cooperative assignor, no callback for a partition kept).
    await new Promise((resolve) => setTimeout(resolve, 400));
    await h.join([0]);
    for (let round = 0; round < 5 && h.answered() < 15; round += 1) {
      const batch = fetched(h.fetch(0));
      if (batch.messages.length > 0) await h.deliver(batch);
      if (await h.hasCommit()) (await h.nextCommit()).accept();
    }

    expect(h.answered()).toBe(15);
    expect(h.committedOffset(0)).toBe(15);
    await h.runtime.stop();
  });
});
