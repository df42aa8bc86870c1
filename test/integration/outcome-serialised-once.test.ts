/**
 * A paid outcome's vendor response is serialised once: the record the Redis store seals and
 * the result written to its topic are made from one JSON.stringify of it (issue 42: the second
 * serialisation was a tenth of what the service spent beyond the one-instance mode). On a real
 * Redis, with encryption at rest on.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { readAtRest } from '../../src/config-at-rest.js';
import { OPERATIONS, topicNames, type Operation } from '../../src/contract/operations.js';
import type { ParamsOf } from '../../src/contract/params.js';
import type { Handler, Handlers } from '../../src/handlers/types.js';
import { recordsForResult } from '../../src/producers/output-records.js';
import { plainJsonCodec } from '../../src/producers/value-codec.js';
import { CircuitBreaker } from '../../src/requests/circuit-breaker.js';
import { redisIdempotencyStore, requestKeys } from '../../src/requests/idempotency.js';
import { processRequest, type ProcessDeps } from '../../src/requests/process-request.js';

const redis = new Redis(inject('redisUrl'));
afterAll(async () => {
  await redis.quit();
});

describe('a paid outcome serialised once', () => {
  it('stores (sealed) and writes the result from one serialisation of the vendor response', async () => {
    const atRest = readAtRest(
      {
        REDIS_ENCRYPTION_KEYS: `k1:${randomBytes(32).toString('base64')}`,
        REDIS_INDEX_KEY: randomBytes(32).toString('base64'),
        ALLOW_PLAINTEXT_REDIS: false,
      },
      (name) => name,
    );
    const keyPrefix = `test-${randomUUID()}`;
    const settings = { keyPrefix, windowSeconds: 60, reservationTtlMs: 30_000, atRest };
    let serialised = 0;
    const body = { data: [{ name: 'Maria da Silva', lawsuits: 3 }] };
    // What JSON.stringify writes for the response, counted each time it is written.
    const response = { toJSON: () => (serialised++, body) };
    const handler: Handler = () => Promise.resolve({ status: 'ok', response, vendor: { httpStatus: 200 } });
    const breaker = new CircuitBreaker({ failureThreshold: 3, cooldownMs: 20 });
    const deps: ProcessDeps = {
      decodeValue: (value) => plainJsonCodec().readRequest(value),
      parseParams: <O extends Operation>(_op: O, params: unknown) => ({
        ok: true as const,
        value: params as ParamsOf<O>,
      }),
      handlers: Object.fromEntries(OPERATIONS.map((op) => [op, handler])) as unknown as Handlers,
      limiterFor: () => ({
        schedule: (fn) => fn({ confirm: () => undefined, renewals: 0 }),
        backoff: () => {},
      }),
      breakerFor: () => breaker,
      idempotency: redisIdempotencyStore(redis, settings),
      retry: { maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 1, budgetMs: 1_000 },
      maxRequestBytes: 10_000,
      maxJsonDepth: 64,
      maxRawBytes: 100_000,
      now: () => new Date(),
      sleep: () => Promise.resolve(),
    };
    const origin = { topic: 'requests', partition: 0, offset: '3' };
    const value = Buffer.from(JSON.stringify({ requestId: 'once-1', params: { taxId: '11144477735' } }));
    const incoming = { operation: 'lawsuits-summary' as const, origin, value };
    const signals = { signal: new AbortController().signal, callSignal: new AbortController().signal };
    const outcome = await processRequest(deps, incoming, signals, pino({ level: 'silent' }));
    if (outcome.kind !== 'result') throw new Error(`expected a result, got ${outcome.kind}`);
    const output = {
      codec: plainJsonCodec(),
      topics: topicNames('gw'),
      source: '/verification-gateway',
      resultMaxBytes: 100_000,
      now: () => new Date(),
    };
    const [record] = await recordsForResult(output, outcome, { key: null }, value);
    expect(serialised).toBe(1);
    expect(JSON.parse(record?.value.toString('utf8') ?? 'null')).toMatchObject({
      requestId: 'once-1',
      status: 'ok',
      response: body,
    });
    // Stored sealed, and read back as the outcome paid by another replica's store.
    const stored = await redis.getBuffer(requestKeys(keyPrefix, 'once-1').paid);
    expect(stored?.toString('latin1').includes('Maria')).toBe(false);
    const elsewhere = await redisIdempotencyStore(redis, settings).claim('lawsuits-summary', 'once-1');
    expect(elsewhere).toMatchObject({
      paid: { operation: 'lawsuits-summary', origin, outcome: { response: body } },
    });
  });
});
