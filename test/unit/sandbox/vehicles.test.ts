import { isRenavam } from 'validation-br';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../src/sandbox/index.js';
import { plateFor } from '../../../src/sandbox/scenarios.js';
import { call, startSandbox, withoutVolatile, type Envelope } from './helpers.js';
import { WebhookReceiver } from './webhook-receiver.js';

type Vehicle = Record<string, unknown> & {
  licensePlate: string;
  renavam: string;
  chassis: string;
  restrictions: Record<string, unknown>;
  client: Record<string, unknown>;
};
interface AsyncRecord {
  status: 'pending' | 'sucessful' | 'error';
  requestId: string;
  licensePlate: string;
  createdAt: string;
  vehicleData: Vehicle | null;
  webhook: unknown;
}
interface CreateAnswer {
  id: string;
  version: string;
  metadata: { timeSpent: number };
}

let sandbox: Sandbox;
const receiver = new WebhookReceiver();
let hookUrl = '';
beforeAll(async () => {
  sandbox = await startSandbox({ asyncDelayMs: 50, webhookBackoffMs: 20 });
  hookUrl = await receiver.start();
});
afterAll(async () => {
  await sandbox.close();
  await receiver.close();
});

describe('GET /vehicles/v3', () => {
  it('answers the synchronous record: capitalised Invoiced* members, contacts, rfb indicator', async () => {
    const plate = plateFor('found');
    const { status, body } = await call<Envelope<Vehicle>>(sandbox, `/vehicles/v3?licensePlate=${plate}`);
    expect(status).toBe(200);
    expect(body.version).toBe('v3');
    expect(body.data.licensePlate).toBe(plate);
    expect(body.data).toHaveProperty('InvoicedDocumentType');
    expect(body.data).toHaveProperty('InvoicedIdentificationNumber');
    expect(body.data).not.toHaveProperty('invoicedDocumentType');
    expect(body.data).not.toHaveProperty('activeFlag');
    expect(body.data).toHaveProperty('debitTypeGuid');
    expect(body.data.restrictions).toHaveProperty('rfbRestrictionIndicator');
    expect(body.data.client).toHaveProperty('contacts');
    expect(body.data.client).not.toHaveProperty('motherName');
    expect(isRenavam(body.data.renavam)).toBe(true);
  });

  it('searches by registryId and chassis, keeping the value searched', async () => {
    const byRenavam = await call<Envelope<Vehicle>>(sandbox, '/vehicles/v3?registryId=26827649960');
    expect(byRenavam.body.data.renavam).toBe('26827649960');
    const byChassis = await call<Envelope<Vehicle>>(sandbox, '/vehicles/v3?chassis=9BWZZZ377VT004251');
    expect(byChassis.body.data.chassis).toBe('9BWZZZ377VT004251');
  });

  it('answers 404 with version and a Portuguese message when nothing is found', async () => {
    const { status, body } = await call(sandbox, `/vehicles/v3?licensePlate=${plateFor('not-found')}`);
    expect(status).toBe(404);
    expect(body.version).toBe('v3');
    expect(body.error).toMatchObject({ statusCode: 404, error: 'Not Found' });
    expect(body.error.message).toMatch(/Nenhum dado encontrado/);
  });

  it('answers 400 with version for none, two, or non-alphanumeric parameters', async () => {
    for (const query of ['', '?licensePlate=ABC1D23&chassis=9BWZZZ377VT004251', '?licensePlate=ABC-1234']) {
      const { status, body } = await call(sandbox, `/vehicles/v3${query}`);
      expect(status, query).toBe(400);
      expect(body.version).toBe('v3');
    }
  });

  it('is deterministic: the same plate gives the same vehicle', async () => {
    const a = await call<Envelope<Vehicle>>(sandbox, '/vehicles/v3?licensePlate=QRS4T56');
    const b = await call<Envelope<Vehicle>>(sandbox, '/vehicles/v3?licensePlate=qrs4t56');
    expect(withoutVolatile(a.body)).toEqual(withoutVolatile(b.body));
  });
});

describe('POST /vehicles-async/v3 and GET /vehicles-async/v3/:requestId', () => {
  beforeEach(() => {
    receiver.calls.length = 0;
    receiver.statuses = [];
    sandbox.setKnobs({ asyncDelayMs: 50, webhookDrop: false, webhookDuplicates: false });
  });

  async function poll(requestId: string): Promise<Envelope<AsyncRecord>> {
    return (await call<Envelope<AsyncRecord>>(sandbox, `/vehicles-async/v3/${requestId}`)).body;
  }

  it('creates a pending search that turns sucessful and calls the webhook as given', async () => {
    // Pending until the test ends it: a 50 ms delay ran out before the poll on a loaded machine.
    sandbox.setKnobs({ asyncDelayMs: 3_600_000 });
    const plate = plateFor('async-sucessful');
    const webhook = {
      url: `${hookUrl}/hook?x=1`,
      method: 'PUT',
      headers: { 'x-token': 'abc' },
      body: { ref: 'r-1', nested: { n: 1 } },
    };
    const created = await call<CreateAnswer>(sandbox, '/vehicles-async/v3', {
      json: { licensePlate: plate, webhook },
    });
    expect(created.status).toBe(200);
    expect(created.body.version).toBe('v3Async');
    expect(typeof created.body.metadata.timeSpent).toBe('number');
    const pending = await poll(created.body.id);
    expect(pending.data).toMatchObject({
      status: 'pending',
      requestId: created.body.id,
      licensePlate: plate,
      vehicleData: null,
      webhook,
    });
    expect(pending.id).not.toBe(created.body.id);
    expect(pending.data.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

    expect(sandbox.finishAsyncSearches()).toBe(1);
    await receiver.waitForCalls(1);
    const [hook] = receiver.calls;
    expect(hook?.method).toBe('PUT');
    expect(hook?.url).toBe('/hook?x=1');
    expect(hook?.headers['x-token']).toBe('abc');
    expect(JSON.parse(hook?.body ?? '')).toEqual(webhook.body);

    const done = await poll(created.body.id);
    expect(done.version).toBe('v3Async');
    expect(done.data.status).toBe('sucessful');
    expect(done.data.webhook).toEqual(webhook);
    const vehicle = done.data.vehicleData;
    expect(vehicle).toHaveProperty('invoicedDocumentType');
    expect(vehicle).not.toHaveProperty('InvoicedDocumentType');
    expect(vehicle).toHaveProperty('activeFlag', null);
    expect(vehicle).not.toHaveProperty('debitTypeGuid');
    expect(vehicle?.restrictions).not.toHaveProperty('rfbRestrictionIndicator');
    expect(vehicle?.client).toHaveProperty('motherName');
    expect(vehicle?.client).toHaveProperty('birthDateStr');
    expect(vehicle?.client).not.toHaveProperty('contacts');
  });

  it('defaults the webhook method to POST and retries after a failing answer', async () => {
    receiver.statuses = [503];
    const created = await call<CreateAnswer>(sandbox, '/vehicles-async/v3', {
      json: {
        licensePlate: plateFor('async-sucessful', 2),
        webhook: { url: `${hookUrl}/retry`, body: { a: 1 } },
      },
    });
    await receiver.waitForCalls(2);
    expect(receiver.calls.map((c) => c.method)).toEqual(['POST', 'POST']);
    expect(receiver.calls[1]?.headers['content-type']).toBe('application/json');
    await sandbox.webhooksIdle();
    expect(sandbox.counters().webhooks.delivered).toBeGreaterThanOrEqual(1);
    expect((await poll(created.body.id)).data.status).toBe('sucessful');
  });

  it('ends in error by rule, still notifying, with vehicleData null', async () => {
    const created = await call<CreateAnswer>(sandbox, '/vehicles-async/v3', {
      json: { licensePlate: plateFor('async-error'), webhook: { url: `${hookUrl}/err`, method: 'GET' } },
    });
    await receiver.waitForCalls(1);
    expect(receiver.calls[0]?.method).toBe('GET');
    const done = await poll(created.body.id);
    expect(done.data.status).toBe('error');
    expect(done.data.vehicleData).toBeNull();
  });

  it('sends duplicates and drops webhooks when told', async () => {
    sandbox.setKnobs({ webhookDuplicates: true });
    await call(sandbox, '/vehicles-async/v3', {
      json: { licensePlate: plateFor('async-sucessful', 3), webhook: { url: `${hookUrl}/dup` } },
    });
    await receiver.waitForCalls(2);
    expect(receiver.calls.map((c) => c.url)).toEqual(['/dup', '/dup']);
    sandbox.setKnobs({ webhookDuplicates: false, webhookDrop: true });
    const before = sandbox.counters().webhooks.dropped;
    const created = await call<CreateAnswer>(sandbox, '/vehicles-async/v3', {
      json: { licensePlate: plateFor('async-sucessful', 4), webhook: { url: `${hookUrl}/drop` } },
    });
    await expect.poll(async () => (await poll(created.body.id)).data.status).toBe('sucessful');
    expect(sandbox.counters().webhooks.dropped).toBe(before + 1);
    expect(receiver.calls.some((c) => c.url === '/drop')).toBe(false);
  });

  it('finishes pending searches when told, webhooks sent, and only those still pending', async () => {
    sandbox.setKnobs({ asyncDelayMs: 3_600_000 });
    const created = await Promise.all(
      [6, 7].map((i) =>
        call<CreateAnswer>(sandbox, '/vehicles-async/v3', {
          json: { licensePlate: plateFor('async-sucessful', i), webhook: { url: `${hookUrl}/now` } },
        }),
      ),
    );
    for (const c of created) expect((await poll(c.body.id)).data.status).toBe('pending');
    expect(sandbox.finishAsyncSearches()).toBe(2);
    for (const c of created) expect((await poll(c.body.id)).data.status).toBe('sucessful');
    await receiver.waitForCalls(2);
    expect(receiver.calls.map((c) => c.url)).toEqual(['/now', '/now']);
    expect(sandbox.finishAsyncSearches()).toBe(0);
  });

  it('keeps a search without webhook pollable, with webhook null', async () => {
    const created = await call<CreateAnswer>(sandbox, '/vehicles-async/v3', {
      json: { licensePlate: plateFor('async-sucessful', 5) },
    });
    expect((await poll(created.body.id)).data.webhook).toBeNull();
  });

  it('answers 400 for a bad body and 404 for an unknown requestId, both with version v3Async', async () => {
    for (const json of [
      {},
      { licensePlate: 'AB-123' },
      { licensePlate: 'ABC1D23', webhook: { method: 'POST' } },
      { licensePlate: 'ABC1D23', webhook: { url: 'x', method: 'DELETE' } },
    ]) {
      const { status, body } = await call(sandbox, '/vehicles-async/v3', { json });
      expect(status, JSON.stringify(json)).toBe(400);
      expect(body.version).toBe('v3Async');
    }
    const missing = await call(sandbox, '/vehicles-async/v3/does-not-exist');
    expect(missing.status).toBe(404);
    expect(missing.body.version).toBe('v3Async');
  });
});
