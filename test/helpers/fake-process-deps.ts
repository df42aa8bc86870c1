import { CircuitBreaker } from '../../src/requests/circuit-breaker.js';
import { memoryIdempotencyStore } from '../../src/requests/idempotency.js';
import type { ProcessDeps } from '../../src/requests/process-request.js';
import type { Handlers } from '../../src/handlers/types.js';
import { plainJsonCodec } from '../../src/producers/value-codec.js';

const unreachable = (): never => {
  throw new Error('not reached in these tests');
};

/**
 * What the runtime's unit tests hand processRequest: plain JSON values, no handler (a request
 * that reaches the vendor is a test error), one call and no waiting.
 */
export function fakeProcessDeps(now: () => Date): ProcessDeps {
  const breaker = new CircuitBreaker({ failureThreshold: 3, cooldownMs: 20 });
  return {
    decodeValue: (value) => plainJsonCodec().readRequest(value),
    parseParams: unreachable,
    handlers: {} as Handlers,
    limiterFor: unreachable,
    breakerFor: () => breaker,
    idempotency: memoryIdempotencyStore(60),
    retry: { maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 1, budgetMs: 1 },
    maxRequestBytes: 10_000,
    maxJsonDepth: 64,
    maxRawBytes: 100_000,
    now,
    sleep: () => Promise.resolve(),
  };
}
