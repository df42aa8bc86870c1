import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Origin } from '../../../src/contract/envelopes.js';
import { COMMIT_WAIT_MS, settleSearch } from '../../../src/webhooks/completion.js';
import { decodeSearch, encodeSearch } from '../../../src/webhooks/pending-store.js';
import { harness, pendingSearch } from './helpers.js';

const signal = new AbortController().signal;

afterEach(() => {
  vi.useRealTimers();
});

describe('settling a vehicle search', () => {
  it('publishes completed once with the request key and metadata, then forgets the search', async () => {
    const { deps, store, published } = harness();
    await store.add(pendingSearch(), 0);
    expect(await settleSearch(deps, 'req-1', 'webhook', signal)).toEqual({
      kind: 'published',
      status: 'completed',
    });
    expect(published).toHaveLength(1);
    expect(published[0]?.event).toMatchObject({
      requestId: 'req-1',
      searchId: 's-1',
      status: 'completed',
      via: 'webhook',
      metadata: { case: 'A-17' },
    });
    expect(published[0]?.key?.toString()).toBe('plate-key');
    expect(await store.get('req-1')).toBeUndefined();
    expect(await store.doneSearch('req-1')).toBe('s-1');
  });

  it('maps the vendor error status to failed', async () => {
    const { deps, store, published, vendor } = harness();
    vendor.status = 'error';
    await store.add(pendingSearch(), 0);
    await settleSearch(deps, 'req-1', 'poll', signal);
    expect(published.map((p) => [p.event.status, p.event.via])).toEqual([['failed', 'poll']]);
  });

  it('publishes nothing for a duplicate webhook call after completion', async () => {
    const { deps, store, published } = harness();
    await store.add(pendingSearch(), 0);
    await settleSearch(deps, 'req-1', 'webhook', signal);
    expect(await settleSearch(deps, 'req-1', 'webhook', signal)).toEqual({ kind: 'gone' });
    expect(published).toHaveLength(1);
  });

  it('publishes once when a webhook and two replicas settle the search together', async () => {
    const { deps, store, published } = harness();
    await store.add(pendingSearch(), 0);
    const replicaB = { ...deps, owner: 'replica-b' };
    const results = await Promise.all([
      settleSearch(deps, 'req-1', 'webhook', signal),
      settleSearch(replicaB, 'req-1', 'poll', signal),
      settleSearch(deps, 'req-1', 'poll', signal),
    ]);
    expect(published).toHaveLength(1);
    expect(results.filter((r) => r.kind === 'published')).toHaveLength(1);
  });

  it('answers busy while another replica holds the claim', async () => {
    const { deps, store, published, vendor } = harness();
    await store.add(pendingSearch(), 0);
    await store.claim('req-1', 'replica-b', 5_000);
    expect(await settleSearch(deps, 'req-1', 'webhook', signal)).toEqual({ kind: 'busy' });
    expect(vendor.calls).toBe(0);
    expect(published).toHaveLength(0);
  });

  it('keeps its claim through a publish slower than the claim, so no other replica publishes too', async () => {
    vi.useFakeTimers();
    let landPublish: () => void = () => undefined;
    const { deps, store, published, clock } = harness({ claimTtlMs: 3_000 });
    const slowFirst: typeof deps.publish = (event, correlation) => {
      published.push({ event, key: correlation.key });
      return published.length === 1
        ? new Promise<void>((resolve) => (landPublish = resolve))
        : Promise.resolve();
    };
    await store.add(pendingSearch(), 0);
    const first = settleSearch({ ...deps, publish: slowFirst }, 'req-1', 'webhook', signal);
    while (published.length === 0) await vi.advanceTimersByTimeAsync(0);
    // Twice the claim's TTL with the first publish still under way.
    for (let step = 0; step < 6; step += 1) {
      clock.now += 1_000;
      await vi.advanceTimersByTimeAsync(1_000);
    }
    const other = { ...deps, owner: 'replica-b', publish: slowFirst };
    expect(await settleSearch(other, 'req-1', 'poll', signal)).toEqual({ kind: 'busy' });
    landPublish();
    expect(await first).toEqual({ kind: 'published', status: 'completed' });
    expect(published).toHaveLength(1);
  });

  it('finishes a search whose claimant crashed before publishing, once the claim lapses', async () => {
    const { deps, store, published, clock } = harness();
    await store.add(pendingSearch(), 0);
    await store.claim('req-1', 'crashed-replica', deps.claimTtlMs);
    expect(await store.takeDue(clock.now, 10, deps.claimTtlMs)).toEqual(['req-1']);
    clock.now += deps.claimTtlMs;
    expect(await store.takeDue(clock.now, 10, deps.claimTtlMs)).toEqual(['req-1']);
    expect(await settleSearch(deps, 'req-1', 'poll', signal)).toEqual({
      kind: 'published',
      status: 'completed',
    });
    expect(published).toHaveLength(1);
  });

  it('reschedules a pending search with backoff and publishes nothing', async () => {
    const { deps, store, published, vendor, clock } = harness();
    vendor.status = 'pending';
    await store.add(pendingSearch(), 0);
    expect(await settleSearch(deps, 'req-1', 'poll', signal)).toEqual({ kind: 'pending' });
    expect(await settleSearch(deps, 'req-1', 'poll', signal)).toEqual({ kind: 'pending' });
    expect((await store.get('req-1'))?.polls).toBe(2);
    expect(await store.takeDue(clock.now + 3_999, 10, 1)).toEqual([]);
    expect(await store.takeDue(clock.now + 4_000, 10, 1)).toEqual(['req-1']);
    expect(published).toHaveLength(0);
  });

  it('retries a vendor failure at the next poll without an event', async () => {
    const { deps, store, published, vendor } = harness();
    vendor.status = new Error('vendor down');
    await store.add(pendingSearch(), 0);
    expect(await settleSearch(deps, 'req-1', 'poll', signal)).toEqual({ kind: 'vendor-error' });
    expect(await store.get('req-1')).toBeDefined();
    vendor.status = 'sucessful';
    expect(await settleSearch(deps, 'req-1', 'poll', signal)).toMatchObject({ kind: 'published' });
    expect(published).toHaveLength(1);
  });

  it('publishes expired once the expiry has passed and the search is still pending or unreachable', async () => {
    const { deps, store, published, vendor, clock } = harness();
    vendor.status = 'pending';
    await store.add(pendingSearch({ createdAt: 0 }), 0);
    await store.add(pendingSearch({ requestId: 'req-2', searchId: 's-2', createdAt: 0 }), 0);
    clock.now = deps.schedule.expiryMs;
    await settleSearch(deps, 'req-1', 'poll', signal);
    vendor.status = new Error('vendor down');
    await settleSearch(deps, 'req-2', 'poll', signal);
    expect(published.map((p) => p.event.status)).toEqual(['expired', 'expired']);
    expect(published[1]?.event.response).toBeUndefined();
    expect(await settleSearch(deps, 'req-1', 'poll', signal)).toEqual({ kind: 'gone' });
  });

  it('leaves a search that replaced the settled one alone', async () => {
    const { deps, store, published } = harness();
    await store.add(pendingSearch(), 0);
    const stale = {
      ...deps,
      publish: async () => {
        await store.add(pendingSearch({ searchId: 's-2' }), 0);
      },
    };
    await settleSearch(stale, 'req-1', 'poll', signal);
    expect((await store.get('req-1'))?.searchId).toBe('s-2');
    await settleSearch(deps, 'req-1', 'poll', signal);
    expect(published.map((p) => p.event.searchId)).toEqual(['s-2']);
  });

  it('publishes nothing when its claim was lost meanwhile (Redis lost it) and another worker holds it', async () => {
    const { deps, store, published, clock } = harness();
    await store.add(pendingSearch(), 0);
    const lostDuringFetch: typeof deps.fetchSearch = async (searchId, options) => {
      const answer = await deps.fetchSearch(searchId, options);
      // The claim gone (as with a Redis fail-over), and taken by a second worker of this process.
      clock.now += deps.claimTtlMs + 1;
      expect(await store.claim('req-1', `${deps.owner}:another-worker`, 5_000)).toBe(true);
      return answer;
    };
    expect(await settleSearch({ ...deps, fetchSearch: lostDuringFetch }, 'req-1', 'poll', signal)).toEqual({
      kind: 'busy',
    });
    expect(published).toHaveLength(0);
    expect(await store.get('req-1')).toBeDefined();
  });

  it('tries marking a published search done again, so that it is not published a second time', async () => {
    vi.useFakeTimers();
    const { deps, store, published } = harness();
    await store.add(pendingSearch(), 0);
    const finish = vi
      .spyOn(store, 'finish')
      .mockRejectedValueOnce(new Error('redis timeout'))
      .mockRejectedValueOnce(new Error('redis timeout'));
    const settled = settleSearch(deps, 'req-1', 'webhook', signal);
    await vi.runAllTimersAsync();
    expect(await settled).toEqual({ kind: 'published', status: 'completed' });
    expect(finish).toHaveBeenCalledTimes(3);
    expect(await store.get('req-1')).toBeUndefined();
    expect(published).toHaveLength(1);
  });

  it('keeps the search when publishing fails, so it is tried again', async () => {
    const { deps, store, published } = harness();
    await store.add(pendingSearch(), 0);
    const failing = { ...deps, publish: () => Promise.reject(new Error('broker down')) };
    await expect(settleSearch(failing, 'req-1', 'webhook', signal)).rejects.toThrow('broker down');
    expect(await store.get('req-1')).toBeDefined();
    await settleSearch(deps, 'req-1', 'poll', signal);
    expect(published).toHaveLength(1);
  });
});

describe('settling a vehicle search before its request is committed', () => {
  const origin: Origin = { topic: 'verification.requests.vehicle-async', partition: 1, offset: '41' };

  /** A harness whose commit check answers from `commit.done` and records what it was asked. */
  function uncommitted() {
    const commit = { done: false, asked: [] as Origin[] };
    const h = harness({
      isRequestCommitted: (asked) => {
        commit.asked.push(asked);
        return Promise.resolve(commit.done);
      },
    });
    return { ...h, commit };
  }

  it('publishes nothing until the commit, then exactly one event', async () => {
    const { deps, store, published, vendor, clock, commit } = uncommitted();
    await store.add(pendingSearch({ origin }), 0);
    // The vendor's webhook beat the commit of the request (and of its pending event).
    expect(await settleSearch(deps, 'req-1', 'webhook', signal)).toEqual({ kind: 'uncommitted' });
    expect(await settleSearch(deps, 'req-1', 'poll', signal)).toEqual({ kind: 'uncommitted' });
    expect(published).toHaveLength(0);
    expect(vendor.calls).toBe(0);
    expect(commit.asked).toEqual([origin, origin]);
    // Due again soon, not at the poll backoff, and not counted as a poll.
    expect((await store.get('req-1'))?.polls).toBe(0);
    expect(await store.takeDue(clock.now + COMMIT_WAIT_MS - 1, 10, 1)).toEqual([]);
    expect(await store.takeDue(clock.now + COMMIT_WAIT_MS, 10, 1)).toEqual(['req-1']);

    commit.done = true;
    expect(await settleSearch(deps, 'req-1', 'poll', signal)).toEqual({
      kind: 'published',
      status: 'completed',
    });
    expect(await settleSearch(deps, 'req-1', 'webhook', signal)).toEqual({ kind: 'gone' });
    expect(published.map((p) => [p.event.status, p.event.via])).toEqual([['completed', 'poll']]);
  });

  it('does not expire a search before the commit', async () => {
    const { deps, store, published, vendor, clock, commit } = uncommitted();
    vendor.status = 'pending';
    await store.add(pendingSearch({ origin, createdAt: 0 }), 0);
    clock.now = deps.schedule.expiryMs + 1;
    expect(await settleSearch(deps, 'req-1', 'poll', signal)).toEqual({ kind: 'uncommitted' });
    expect(published).toHaveLength(0);
    commit.done = true;
    await settleSearch(deps, 'req-1', 'poll', signal);
    expect(published.map((p) => p.event.status)).toEqual(['expired']);
  });

  it('treats a search recorded without origin (an older entry) as committed', async () => {
    const { deps, store, published, commit } = uncommitted();
    const decoded = decodeSearch(JSON.stringify(pendingSearch()));
    expect(decoded).toBeDefined();
    expect(decoded?.origin).toBeUndefined();
    if (decoded) await store.add(decoded, 0);
    await settleSearch(deps, 'req-1', 'webhook', signal);
    expect(published).toHaveLength(1);
    expect(commit.asked).toEqual([]);
  });

  it('keeps the origin across the pending store encoding', () => {
    const search = pendingSearch({ origin });
    expect(decodeSearch(encodeSearch(search))).toEqual(search);
  });
});
