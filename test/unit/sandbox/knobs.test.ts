import { request } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_KNOBS, fingerprintOf, knobsFromEnv, type Sandbox } from '../../../src/sandbox/index.js';
import { sampleLatencyMs } from '../../../src/sandbox/hooks.js';
import { cpfFor, plateFor } from '../../../src/sandbox/scenarios.js';
import { AUTH, call, startSandbox, type Envelope } from './helpers.js';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterEach(() => {
  sandbox.setKnobs({ ...DEFAULT_KNOBS });
  sandbox.reset();
});
afterAll(async () => {
  await sandbox.close();
});

const summaryPath = () => `/lawsuits-summary/v1?taxId=${cpfFor('happy')}`;

async function startOfSecond(): Promise<void> {
  while (Date.now() % 1000 > 50) await new Promise((resolve) => setTimeout(resolve, 5));
}

describe('authentication and unknown paths', () => {
  it('answers 401 with the error envelope for a missing key, a wrong key and a wrong scheme', async () => {
    const headers: Record<string, string>[] = [
      {},
      { authorization: 'ApiKey wrong' },
      { authorization: 'Bearer test-key' },
    ];
    for (const header of headers) {
      const { status, body } = await call(sandbox, summaryPath(), { auth: false, headers: header });
      expect(status).toBe(401);
      expect(typeof body.id).toBe('string');
      expect(body.error).toMatchObject({ statusCode: 401, error: 'Unauthorized' });
    }
    const vehicle = await call(sandbox, `/vehicles/v3?licensePlate=${plateFor('found')}`, { auth: false });
    expect(vehicle.body.version).toBe('v3');
    expect(sandbox.counters()).toMatchObject({ unauthorized: 4, billed: 0 });
  });

  it('answers 404 with the error envelope for an unknown path', async () => {
    const { status, body } = await call(sandbox, '/lawsuits/v9?taxId=1');
    expect(status).toBe(404);
    expect(body.error).toMatchObject({ statusCode: 404, error: 'Not Found' });
    expect(sandbox.counters().billed).toBe(0);
  });
});

describe('fault knobs', () => {
  it('adds latency', async () => {
    sandbox.knobs.latencyMeanMs = 150;
    const started = performance.now();
    const { status, body } = await call<Envelope<unknown>>(sandbox, summaryPath());
    expect(status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
    expect(body.metadata.timeSpent).toBeGreaterThanOrEqual(140);
  });

  it('draws latency uniform or normal, never negative', () => {
    const knobs = { ...DEFAULT_KNOBS, latencyMeanMs: 10, latencyJitterMs: 50 };
    expect(sampleLatencyMs(knobs, () => 0)).toBe(0);
    expect(sampleLatencyMs(knobs, () => 0.999)).toBeCloseTo(59.9, 0);
    const normal = { ...knobs, latencyDistribution: 'normal' as const };
    for (let i = 0; i < 200; i++) expect(sampleLatencyMs(normal)).toBeGreaterThanOrEqual(0);
  });

  it('answers 5xx at error rate 1.0 and does not bill it', async () => {
    sandbox.setKnobs({ errorRate: 1 });
    const first = await call(sandbox, summaryPath());
    expect(first.status).toBe(500);
    expect(first.body.error).toMatchObject({ statusCode: 500, error: 'Internal Server Error' });
    sandbox.setKnobs({ errorStatus: 503 });
    expect((await call(sandbox, summaryPath())).status).toBe(503);
    expect(sandbox.counters()).toMatchObject({ faults: 2, billed: 0, total: 2 });
  });

  it('holds the call for timeoutHoldMs, then answers 504', async () => {
    sandbox.setKnobs({ errorRate: 1, errorKind: 'timeout', timeoutHoldMs: 300 });
    const started = performance.now();
    const { status } = await call(sandbox, summaryPath());
    expect(status).toBe(504);
    expect(performance.now() - started).toBeGreaterThanOrEqual(280);
    sandbox.setKnobs({ timeoutHoldMs: 5_000 });
    const timedOut = request(`${sandbox.url}${summaryPath()}`, {
      headers: AUTH,
      signal: AbortSignal.timeout(150),
    });
    await expect(timedOut).rejects.toMatchObject({ name: 'TimeoutError' });
  });

  it('resets the connection', async () => {
    sandbox.setKnobs({ errorRate: 1, errorKind: 'reset' });
    await expect(request(`${sandbox.url}${summaryPath()}`, { headers: AUTH })).rejects.toThrow();
    sandbox.setKnobs({ errorRate: 0 });
    expect((await call(sandbox, summaryPath())).status).toBe(200);
  });
});

describe('rate limit and counters', () => {
  it('answers 429 with Retry-After above the rate and counts billable calls per window', async () => {
    sandbox.setKnobs({ rateLimitPerSecond: 3 });
    await startOfSecond();
    const answers = await Promise.all(Array.from({ length: 10 }, () => call(sandbox, summaryPath())));
    const limited = answers.filter((a) => a.status === 429);
    expect(answers.filter((a) => a.status === 200)).toHaveLength(3);
    expect(limited).toHaveLength(7);
    expect(limited[0]?.headers['retry-after']).toBe('1');
    expect(limited[0]?.body.error).toMatchObject({ statusCode: 429, error: 'Too Many Requests' });
    const counters = sandbox.counters();
    expect(counters).toMatchObject({ total: 10, billed: 3, rateLimited: 7, maxInOneSecond: 3 });
    expect(counters.maxAttemptsInOneSecond).toBe(10);
  });

  it('counts billable calls by operation and by fingerprint without the raw tax id', async () => {
    const taxId = cpfFor('happy');
    await call(sandbox, summaryPath());
    await call(sandbox, summaryPath());
    await call(sandbox, `/vehicles/v3?licensePlate=${plateFor('not-found')}`);
    await call(sandbox, '/vehicles/v3');
    const counters = sandbox.counters();
    expect(counters.byOperation).toEqual({ 'lawsuits-summary': 2, vehicle: 1 });
    expect(counters.byFingerprint[fingerprintOf('lawsuits-summary', taxId)]).toBe(2);
    expect(JSON.stringify(counters)).not.toContain(taxId);
    expect(counters).toMatchObject({ total: 4, billed: 3 });
  });
});

describe('admin endpoints', () => {
  it('reads, patches, validates and restores knobs over HTTP without a key', async () => {
    const put = await call<typeof DEFAULT_KNOBS>(sandbox, '/__sandbox/knobs', {
      method: 'PUT',
      json: { errorRate: 0.5 },
      auth: false,
    });
    expect(put.status).toBe(200);
    expect(put.body.errorRate).toBe(0.5);
    expect(sandbox.knobs.errorRate).toBe(0.5);
    const bad = await call(sandbox, '/__sandbox/knobs', {
      method: 'PUT',
      json: { errorRate: 2 },
      auth: false,
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain('errorRate');
    const unknown = await call(sandbox, '/__sandbox/knobs', {
      method: 'PUT',
      json: { nope: 1 },
      auth: false,
    });
    expect(unknown.status).toBe(400);
    await call(sandbox, '/__sandbox/knobs', { method: 'DELETE', auth: false });
    expect(
      (await call<typeof DEFAULT_KNOBS>(sandbox, '/__sandbox/knobs', { auth: false })).body.errorRate,
    ).toBe(0);
  });

  it('serves counters and resets them', async () => {
    await call(sandbox, summaryPath());
    const before = await call<{ billed: number }>(sandbox, '/__sandbox/counters', { auth: false });
    expect(before.body.billed).toBe(1);
    expect((await call(sandbox, '/__sandbox/reset', { method: 'POST', auth: false })).status).toBe(200);
    expect(sandbox.counters()).toMatchObject({ total: 0, billed: 0, byOperation: {}, maxInOneSecond: 0 });
  });

  it('reads knobs from the environment and names a bad variable', () => {
    expect(
      knobsFromEnv({ SANDBOX_LATENCY_MS: '25', SANDBOX_ERROR_KIND: 'reset', SANDBOX_WEBHOOK_DROP: 'true' }),
    ).toEqual({
      latencyMeanMs: 25,
      errorKind: 'reset',
      webhookDrop: true,
    });
    expect(() => knobsFromEnv({ SANDBOX_ERROR_RATE: 'lots' })).toThrow(/errorRate/);
  });
});
