import { describe, expect, it } from 'vitest';
import { OPERATIONS, type Operation } from '../../../src/contract/operations.js';
import { createHandlers } from '../../../src/handlers/index.js';
import type { VendorClient } from '../../../src/vendor-api/client.js';

function recordingVendor() {
  const calls: { operation: Operation; params: unknown; options: unknown }[] = [];
  const vendor = {
    call: (operation: Operation, params: unknown, options: unknown) => {
      calls.push({ operation, params, options });
      return Promise.resolve({
        outcome: 'ok',
        httpStatus: 200,
        raw: { id: `v-${operation}` },
        vendorId: `v-${operation}`,
        body: { id: `search-${operation}` },
      });
    },
  } as unknown as VendorClient;
  return { vendor, calls };
}

describe('handlers', () => {
  it('call the vendor for their own operation with the params exactly as parsed', async () => {
    const { vendor, calls } = recordingVendor();
    const handlers = createHandlers({ vendor });
    const signal = new AbortController().signal;
    const beforeSend = (): void => undefined;
    for (const operation of OPERATIONS) {
      const params = { marker: operation };
      // The table is keyed by operation; each handler is typed for its own params.
      const handler = handlers[operation] as (p: unknown, c: unknown) => Promise<unknown>;
      const outcome = await handler(params, { requestId: `r-${operation}`, signal, beforeSend });
      expect(outcome).toMatchObject({ vendor: { id: `v-${operation}`, httpStatus: 200 } });
    }
    expect(calls.map((call) => call.operation)).toEqual([...OPERATIONS]);
    for (const call of calls) {
      expect(call.params).toEqual({ marker: call.operation });
      expect(call.options).toMatchObject({ signal, beforeSend });
    }
  });

  it('answer accepted with the search id for vehicle-async only', async () => {
    const { vendor } = recordingVendor();
    const handlers = createHandlers({ vendor });
    const context = { requestId: 'r', signal: new AbortController().signal };
    const asyncOutcome = await handlers['vehicle-async']({ licensePlate: 'ABC1D23' }, context);
    const syncOutcome = await handlers.vehicle({ licensePlate: 'ABC1D23' }, context);
    expect(asyncOutcome).toMatchObject({ status: 'accepted', searchId: 'search-vehicle-async' });
    expect(syncOutcome.status).toBe('ok');
    expect(syncOutcome.searchId).toBeUndefined();
  });
});
