import { pino } from 'pino';
import type { VehicleSearchEvent } from '../../../src/contract/envelopes.js';
import type { VehicleSearchResponse } from '../../../src/vendor-api/schemas/vehicle.js';
import type { VendorResult } from '../../../src/vendor-api/types.js';
import type { CompletionDeps } from '../../../src/webhooks/completion.js';
import { memoryPendingStore } from '../../../src/webhooks/memory-pending-store.js';
import type { PendingSearch, PendingStore } from '../../../src/webhooks/pending-store.js';

export const silent = pino({ level: 'silent' });

export type VendorStatus = 'pending' | 'sucessful' | 'error';

export function searchResult(status: VendorStatus, searchId = 's-1'): VendorResult<VehicleSearchResponse> {
  const data = {
    status,
    requestId: searchId,
    licensePlate: 'ABC1D23',
    createdAt: '2026-01-01T00:00:00.000Z',
  };
  return {
    outcome: 'ok',
    httpStatus: 200,
    raw: { id: 'q-1', version: 'v3Async', data },
    body: { data },
  };
}

export function pendingSearch(overrides: Partial<PendingSearch> = {}): PendingSearch {
  return {
    requestId: 'req-1',
    searchId: 's-1',
    createdAt: 0,
    key: Buffer.from('plate-key').toString('base64'),
    metadata: { case: 'A-17' },
    polls: 0,
    ...overrides,
  };
}

/** A settable clock, a memory store on it, a scripted vendor and a recording publisher. */
export function harness(overrides: Partial<CompletionDeps> = {}) {
  const clock = { now: 1_000 };
  const store: PendingStore = memoryPendingStore(() => clock.now);
  const published: { event: VehicleSearchEvent; key: Buffer | null }[] = [];
  const vendor = { status: 'sucessful' as VendorStatus | Error, calls: 0 };
  const deps: CompletionDeps = {
    store,
    fetchSearch: (searchId) => {
      vendor.calls++;
      return vendor.status instanceof Error
        ? Promise.reject(vendor.status)
        : Promise.resolve(searchResult(vendor.status, searchId));
    },
    publish: (event, correlation) => {
      published.push({ event, key: correlation.key });
      return Promise.resolve();
    },
    // The request that created the search is committed, unless a test says otherwise.
    isRequestCommitted: () => Promise.resolve(true),
    schedule: { baseMs: 1_000, maxMs: 8_000, expiryMs: 60_000 },
    claimTtlMs: 5_000,
    doneTtlMs: 3_600_000,
    owner: 'replica-a',
    now: () => clock.now,
    random: () => 0.5,
    logger: silent,
    ...overrides,
  };
  return { clock, store, published, vendor, deps };
}
