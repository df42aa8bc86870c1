import { describe, expect, it } from 'vitest';
import { AppError } from '../../../src/errors.js';
import { vehicleAsyncHandler, type CreatedSearch } from '../../../src/handlers/index.js';
import type { VendorClient } from '../../../src/vendor-api/client.js';
import { memoryPendingStore } from '../../../src/webhooks/memory-pending-store.js';
import { createPoller } from '../../../src/webhooks/poller.js';
import { createVehicleSearchTracker } from '../../../src/webhooks/tracker.js';
import { settleSearch } from '../../../src/webhooks/completion.js';
import { harness, pendingSearch, silent } from './helpers.js';

const created = {
  outcome: 'ok',
  httpStatus: 200,
  raw: { id: 's-9', version: 'v3Async' },
  body: { id: 's-9', version: 'v3Async', metadata: undefined },
} as const;
const vendor = { call: () => Promise.resolve(created) } as unknown as VendorClient;
const context = {
  requestId: 'req-9',
  signal: new AbortController().signal,
  metadata: { case: 'B-2' },
  correlation: { key: Buffer.from('ABC1D23'), traceparent: undefined },
  origin: { topic: 'verification.requests.vehicle-async', partition: 1, offset: '41' },
};

describe('vehicle-async handler and the tracker', () => {
  it('records the search, with the request key and metadata, before answering accepted', async () => {
    const recorded: CreatedSearch[] = [];
    const handler = vehicleAsyncHandler(vendor, {
      onSearchCreated: (search) => {
        recorded.push(search);
        return Promise.resolve();
      },
    });
    const outcome = await handler({ licensePlate: 'ABC1D23' }, context);
    expect(outcome).toMatchObject({ status: 'accepted', searchId: 's-9' });
    expect(recorded).toEqual([
      {
        requestId: 'req-9',
        searchId: 's-9',
        metadata: { case: 'B-2' },
        correlation: context.correlation,
        origin: context.origin,
      },
    ]);
  });

  it('keeps the request origin in the pending entry, for the commit check', async () => {
    const store = memoryPendingStore();
    const tracker = createVehicleSearchTracker({
      vendor: { getVehicleSearch: () => Promise.reject(new Error('not called')) },
      store,
      publisher: {
        publish: () => Promise.resolve(),
        connect: () => Promise.resolve(),
        disconnect: () => Promise.resolve(),
      },
      settings: {
        method: 'POST',
        pollBaseMs: 1_000,
        pollMaxMs: 8_000,
        expiryMs: 60_000,
        claimTtlMs: 5_000,
        doneTtlMs: 60_000,
        webhookFetchIntervalMs: 10_000,
        sinkLimits: { maxConcurrent: 32, ratePerSecond: 1_000 },
      },
      logger: silent,
      isRequestCommitted: () => Promise.resolve(true),
    });
    const handler = vehicleAsyncHandler(vendor, {
      onSearchCreated: (search, signal) => tracker.onSearchCreated(search, signal),
    });
    await handler({ licensePlate: 'ABC1D23' }, context);
    expect(await store.get('req-9')).toMatchObject({ searchId: 's-9', origin: context.origin });
  });

  it('fails retryably when the search cannot be recorded, so no accepted result goes out without it', async () => {
    const handler = vehicleAsyncHandler(vendor, {
      onSearchCreated: () => Promise.reject(new Error('redis down')),
    });
    const failure = await handler({ licensePlate: 'ABC1D23' }, context).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(AppError);
    expect(failure).toMatchObject({ retryable: true, code: 'PENDING_STORE_FAILED' });
  });

  it('tries only the record again, never a second search, when the same message comes back (issue 39, N2)', async () => {
    let calls = 0;
    const counting = {
      call: () => {
        calls += 1;
        return Promise.resolve({ ...created, raw: { id: `s-${calls}` }, body: { id: `s-${calls}` } });
      },
    } as unknown as VendorClient;
    const recorded: CreatedSearch[] = [];
    let failures = 2;
    const handler = vehicleAsyncHandler(counting, {
      onSearchCreated: (search) => {
        if (failures-- > 0) return Promise.reject(new Error('OOM command not allowed'));
        recorded.push(search);
        return Promise.resolve();
      },
    });
    for (let i = 0; i < 2; i++) {
      await expect(handler({ licensePlate: 'ABC1D23' }, context)).rejects.toMatchObject({
        code: 'PENDING_STORE_FAILED',
      });
    }
    const outcome = await handler({ licensePlate: 'ABC1D23' }, context);
    expect(calls).toBe(1);
    expect(outcome).toMatchObject({ status: 'accepted', searchId: 's-1' });
    expect(recorded.map((search) => search.searchId)).toEqual(['s-1']);
    // Recorded: the next message with this requestId goes through the vendor again as before
    // (the runtime's idempotency store answers copies; the handler is not its place).
    await handler({ licensePlate: 'ABC1D23' }, { ...context, origin: { ...context.origin, offset: '42' } });
    expect(calls).toBe(2);
  });

  it('poller scans take due searches once, hiding them from a second scan for the lease', async () => {
    const { deps, store, published, clock } = harness();
    await store.add(pendingSearch(), 0);
    await store.add(pendingSearch({ requestId: 'req-2', searchId: 's-2' }), clock.now + 60_000);
    const poller = createPoller({
      store,
      settle: (requestId, signal) => settleSearch(deps, requestId, 'poll', signal),
      intervalMs: 10,
      idleMs: 10_000,
      batchSize: 10,
      leaseMs: 5_000,
      concurrency: 2,
      now: () => clock.now,
      logger: silent,
    });
    const signal = new AbortController().signal;
    expect(await poller.scan(signal)).toBe(1);
    expect(await poller.scan(signal)).toBe(0);
    expect(published.map((p) => p.event.requestId)).toEqual(['req-1']);
  });
});
