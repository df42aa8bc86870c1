import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createAdminServer, createPublicServer } from '../../../src/observability/http-server.js';

describe('the HTTP listeners', () => {
  it('serves health, readiness and metrics on the admin listener only', async () => {
    let ready = false;
    const admin = createAdminServer({ metrics: new Registry(), isReady: () => ready });
    const open = createPublicServer();
    open.post('/webhooks/vehicle-search', () => ({ ok: true }));
    expect((await admin.inject('/healthz')).statusCode).toBe(200);
    expect((await admin.inject('/readyz')).statusCode).toBe(503);
    ready = true;
    expect((await admin.inject('/readyz')).statusCode).toBe(200);
    expect((await admin.inject('/metrics')).statusCode).toBe(200);
    for (const path of ['/healthz', '/readyz', '/metrics'])
      expect((await open.inject(path)).statusCode).toBe(404);
    await Promise.all([admin.close(), open.close()]);
  });
});
