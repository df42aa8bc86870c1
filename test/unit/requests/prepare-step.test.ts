import { describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { CircuitBreaker } from '../../../src/requests/circuit-breaker.js';
import { processRequest, type ProcessDeps } from '../../../src/requests/process-request.js';
import { OPERATIONS } from '../../../src/contract/operations.js';
import type { Handler, Handlers } from '../../../src/handlers/types.js';
import { VendorError } from '../../../src/vendor-api/errors.js';
import { fakeProcessDeps } from '../../helpers/fake-process-deps.js';

const signals = () => ({ signal: new AbortController().signal, callSignal: new AbortController().signal });

const log = pino({ level: 'silent' });

/** A handler with a prepare step (as the face lookup's selfie download), and what ran inside the limiter. */
function setup(prepare: Handler['prepare']) {
  const events: string[] = [];
  const handler: Handler = Object.assign(
    (params: Record<string, unknown>) => {
      events.push(`call ${JSON.stringify(params)}`);
      return Promise.resolve({ status: 'ok' as const, response: {}, vendor: { httpStatus: 200 } });
    },
    { prepare },
  );
  const breaker = new CircuitBreaker({ failureThreshold: 1, cooldownMs: 60_000 });
  const deps: ProcessDeps = {
    ...fakeProcessDeps(() => new Date('2026-11-21T10:00:00.000Z')),
    parseParams: (_op, params) => ({ ok: true, value: params as never }),
    handlers: Object.fromEntries(OPERATIONS.map((op) => [op, handler])) as unknown as Handlers,
    limiterFor: () => ({
      schedule: async (fn) => {
        events.push('limiter in');
        const result = await fn({ confirm: () => undefined, renewals: 0 });
        events.push('limiter out');
        return result;
      },
      backoff: () => undefined,
    }),
    breakerFor: () => breaker,
    retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 2, budgetMs: 10_000 },
    maxRawBytes: 10_000,
  };

  return { deps, events, breaker };
}

const incoming = {
  operation: 'face-document-lookup' as const,
  origin: { topic: 'verification.requests.face-document-lookup', partition: 0, offset: '1' },
  value: Buffer.from(JSON.stringify({ requestId: 'r-1', params: { selfie: { url: 'https://x/s.jpg' } } })),
};

describe('a handler prepare step (selfie download)', () => {
  it('runs once before the limiter, and the vendor call gets what it prepared', async () => {
    const { deps, events } = setup((params) => {
      events.push('prepare');
      return Promise.resolve({ ...params, selfie: { base64: '/9j/' } });
    });
    const outcome = await processRequest(deps, incoming, signals(), log);
    expect(events).toEqual(['prepare', 'limiter in', 'call {"selfie":{"base64":"/9j/"}}', 'limiter out']);
    // The result echoes the request's own params, not the downloaded bytes.
    expect(outcome).toMatchObject({
      kind: 'result',
      result: { params: { selfie: { url: 'https://x/s.jpg' } } },
    });
  });

  it('dead-letters its failure without touching the limiter or the breaker', async () => {
    const { deps, events, breaker } = setup(() =>
      Promise.reject(
        new VendorError('invalid_request', 'the selfie URL could not be used', {
          code: 'SELFIE_UNUSABLE',
          call: { operation: 'face-document-lookup', route: 'GET {selfie url}' },
          retryable: false,
        }),
      ),
    );
    const outcome = await processRequest(deps, incoming, signals(), log);
    expect(outcome).toMatchObject({ kind: 'error', error: { error: { kind: 'invalid_request' } } });
    expect(events).toEqual([]);
    expect(breaker.state).toBe('closed');
  });
});
