import { describe, expect, it, vi } from 'vitest';
import { pino } from 'pino';
import { CircuitBreaker } from '../../../src/requests/circuit-breaker.js';
import {
  memoryIdempotencyStore,
  type Claim,
  type IdempotencyStore,
  type Reservation,
} from '../../../src/requests/idempotency.js';
import { processRequest, type ProcessDeps } from '../../../src/requests/process-request.js';
import { OPERATIONS, type Operation } from '../../../src/contract/operations.js';
import { AppError, InfrastructureError } from '../../../src/errors.js';
import type { ParamsOf } from '../../../src/contract/params.js';
import type { Handler, HandlerOutcome, Handlers } from '../../../src/handlers/types.js';
import { QuotaUnavailableError } from '../../../src/limits/errors.js';
import type { ScheduleLimiter } from '../../../src/limits/types.js';
import { plainJsonCodec } from '../../../src/producers/value-codec.js';

const log = pino({ level: 'silent' });
const signals = (signal = new AbortController().signal, callSignal = new AbortController().signal) => ({
  signal,
  callSignal,
});
const ok: HandlerOutcome = {
  status: 'ok',
  response: { id: 'v1', data: [] },
  vendor: { id: 'v1', httpStatus: 200 },
};

function setup(handler: Handler, overrides: Partial<ProcessDeps> = {}) {
  const breakers = new Map<Operation, CircuitBreaker>(
    OPERATIONS.map((op) => [op, new CircuitBreaker({ failureThreshold: 3, cooldownMs: 20 })]),
  );
  const handlers = Object.fromEntries(OPERATIONS.map((op) => [op, handler])) as unknown as Handlers;
  const backoff = vi.fn();
  const deps: ProcessDeps = {
    decodeValue: (value) => plainJsonCodec().readRequest(value),
    parseParams: <O extends Operation>(_op: O, params: unknown) =>
      typeof params === 'object' && params !== null && 'taxId' in params
        ? { ok: true as const, value: params as ParamsOf<O> }
        : { ok: false as const, message: 'taxId: required' },
    handlers,
    limiterFor: () => ({ schedule: (fn) => fn({ confirm: () => undefined, renewals: 0 }), backoff }),
    breakerFor: (op) => breakers.get(op)!,
    idempotency: memoryIdempotencyStore(60),
    retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 2, budgetMs: 10_000 },
    maxRequestBytes: 10_000,
    maxJsonDepth: 64,
    maxRawBytes: 100_000,
    now: () => new Date('2026-11-21T10:00:00.000Z'),
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    ...overrides,
  };
  return { deps, backoff, breakers };
}

const incoming = (value: unknown) => ({
  operation: 'lawsuits-summary' as const,
  origin: { topic: 'verification.requests.lawsuits-summary', partition: 0, offset: '7' },
  value: value === null ? null : Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)),
});
const request = {
  requestId: 'req-1',
  params: { taxId: '11144477735' },
  source: 'onboarding',
  metadata: { case: 'A-17' },
};

describe('processRequest', () => {
  it('gives the outcome once the paid outcome is stored', async () => {
    const stored: unknown[] = [];
    let landWrite: () => void = () => undefined;
    const idempotency = {
      claim: () =>
        Promise.resolve({
          reservation: {
            complete: (paid: unknown) => {
              stored.push(paid);
              return new Promise<void>((resolve) => (landWrite = resolve));
            },
            release: () => Promise.resolve(),
          },
        }),
      settle: () => Promise.resolve(),
    };
    const { deps } = setup(() => Promise.resolve(ok), { idempotency });
    let given = false;
    const outcome = processRequest(deps, incoming(request), signals(), log).finally(() => (given = true));
    await vi.waitFor(() => {
      expect(stored).toEqual([
        {
          paramsHash: expect.any(String) as unknown,
          operation: 'lawsuits-summary',
          origin: incoming(request).origin,
          outcome: ok,
        },
      ]);
    });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(given).toBe(false);
    landWrite();
    await expect(outcome).resolves.toMatchObject({
      kind: 'result',
      result: { requestId: 'req-1', status: 'ok' },
    });
  });

  it('stores a paid answer, then holds it until the answers gathered with it may go on, given the time its request took', async () => {
    const times = [Date.parse('2026-11-21T10:00:00.000Z'), Date.parse('2026-11-21T10:00:02.500Z')];
    let release: () => void = () => undefined;
    const gather = vi.fn(() => new Promise<void>((resolve) => (release = resolve)));
    const idempotency = memoryIdempotencyStore(60);
    const { deps } = setup(() => Promise.resolve(ok), {
      idempotency,
      gather,
      now: () => new Date(times.shift() ?? Date.parse('2026-11-21T10:00:03.000Z')),
    });
    let given = false;
    const outcome = processRequest(deps, incoming(request), signals(), log).finally(() => (given = true));
    await vi.waitFor(() => {
      expect(gather).toHaveBeenCalledWith(2_500);
    });
    // Stored before the hold: a crash while held must not lead to a second billable call.
    expect(await idempotency.claim('lawsuits-summary', 'req-1')).toMatchObject({ paid: { outcome: ok } });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(given).toBe(false);
    release();
    await expect(outcome).resolves.toMatchObject({ kind: 'result', result: { status: 'ok' } });
  });

  it('turns a vendor outcome into a result that echoes the request', async () => {
    const { deps } = setup(() => Promise.resolve(ok));
    const outcome = await processRequest(deps, incoming(request), signals(), log);
    expect(outcome).toMatchObject({
      kind: 'result',
      result: {
        requestId: 'req-1',
        status: 'ok',
        attempts: 1,
        source: 'onboarding',
        metadata: { case: 'A-17' },
        response: ok.response,
        origin: { offset: '7' },
      },
    });
  });

  it.each([
    ['bad JSON', '{"requestId":', /value is not valid JSON/],
    ['no value', null, /message has no value/],
    ['an envelope without requestId', { params: {} }, /envelope: requestId/],
    ['invalid params', { requestId: 'r', params: { cpf: 'x' } }, /params: taxId: required/],
    [
      'a framed value without a registry',
      Buffer.concat([Buffer.from([0, 0, 0, 0, 9]), Buffer.from('{}')]).toString('latin1'),
      /schema registry wire format \(schema id 9\)/,
    ],
  ])('dead-letters %s as invalid_request without calling the vendor', async (_name, value, message) => {
    const handler = vi.fn(() => Promise.resolve(ok));
    const { deps } = setup(handler);
    const input =
      typeof value === 'string' && value.startsWith('\u0000')
        ? { ...incoming(null), value: Buffer.from(value, 'latin1') }
        : incoming(value);
    const outcome = await processRequest(deps, input, signals(), log);
    expect(outcome.kind).toBe('error');
    if (outcome.kind !== 'error') return;
    expect(outcome.error.error).toMatchObject({ kind: 'invalid_request', retryable: false });
    expect(outcome.error.error.message).toMatch(message);
    expect(handler).not.toHaveBeenCalled();
  });

  it("hands the handler its limiter slot's confirm as beforeSend, on every attempt", async () => {
    const confirms = [vi.fn(), vi.fn()];
    let attempt = 0;
    const handler = vi.fn<Handler>(() =>
      attempt++ === 0
        ? Promise.reject(new AppError('upstream_unavailable', 'down', { retryable: true, httpStatus: 503 }))
        : Promise.resolve(ok),
    );
    const { deps } = setup(handler, {
      limiterFor: () => ({
        schedule: (fn) => fn({ confirm: confirms[attempt] ?? vi.fn(), renewals: 0 }),
        backoff: () => undefined,
      }),
    });
    await expect(processRequest(deps, incoming(request), signals(), log)).resolves.toMatchObject({
      kind: 'result',
      result: { attempts: 2 },
    });
    expect(handler.mock.calls.map(([, context]) => context.beforeSend)).toEqual(confirms);
  });

  it('keeps the raw bytes of an unreadable request', async () => {
    const { deps } = setup(() => Promise.resolve(ok));
    const outcome = await processRequest(deps, incoming('not json'), signals(), log);
    expect(outcome.kind === 'error' && outcome.error.request).toEqual({
      raw: Buffer.from('not json').toString('base64'),
    });
    expect(outcome.kind === 'error' && outcome.error.requestId).toBeNull();
  });

  it('retries retryable failures, then dead-letters with the last error and the attempts', async () => {
    const handler = vi.fn(() =>
      Promise.reject(
        new AppError('upstream_unavailable', 'vendor answered 503', { retryable: true, httpStatus: 503 }),
      ),
    );
    const { deps } = setup(handler);
    // A member this version does not know is kept: the dead letter carries the request as received.
    const asSent = { ...request, requestedAt: '2026-11-21T09:59:59Z', correlationId: 'c-9' };
    const outcome = await processRequest(deps, incoming(asSent), signals(), log);
    expect(handler).toHaveBeenCalledTimes(3);
    expect(outcome).toMatchObject({
      kind: 'error',
      error: { attempts: 3, error: { kind: 'upstream_unavailable', httpStatus: 503, retryable: true } },
    });
    expect(outcome.kind === 'error' && outcome.error.request).toEqual(asSent);
  });

  it('throws a failure of our own Redis around the call to the runtime, never dead-letters it', async () => {
    const handler = vi.fn(() =>
      Promise.reject(
        new InfrastructureError('could not record the pending vehicle search', {
          code: 'PENDING_STORE_FAILED',
        }),
      ),
    );
    const { deps, breakers } = setup(handler);
    await expect(processRequest(deps, incoming(request), signals(), log)).rejects.toMatchObject({
      code: 'PENDING_STORE_FAILED',
    });
    expect(handler).toHaveBeenCalledTimes(1);
    expect(breakers.get('lawsuits-summary')?.state).toBe('closed');
  });

  it('does not retry a non-retryable failure', async () => {
    const handler = vi.fn(() =>
      Promise.reject(new AppError('upstream_rejected', 'vendor answered 422', { httpStatus: 422 })),
    );
    const { deps } = setup(handler);
    const outcome = await processRequest(deps, incoming(request), signals(), log);
    expect(handler).toHaveBeenCalledTimes(1);
    expect(outcome).toMatchObject({
      kind: 'error',
      error: { attempts: 1, error: { kind: 'upstream_rejected' } },
    });
  });

  it('honours Retry-After on 429 by backing the limiter off', async () => {
    let calls = 0;
    const handler = vi.fn(() => {
      calls += 1;
      return calls === 1
        ? Promise.reject(
            new AppError('upstream_unavailable', '429', {
              retryable: true,
              httpStatus: 429,
              retryAfterMs: 5,
            }),
          )
        : Promise.resolve(ok);
    });
    const { deps, backoff } = setup(handler);
    const outcome = await processRequest(deps, incoming(request), signals(), log);
    expect(backoff).toHaveBeenCalledWith(5);
    expect(outcome).toMatchObject({ kind: 'result', result: { attempts: 2 } });
  });

  it('does not pay twice for a redelivered requestId', async () => {
    const handler = vi.fn(() => Promise.resolve(ok));
    const { deps } = setup(handler);
    await processRequest(deps, incoming(request), signals(), log);
    const again = await processRequest(deps, incoming(request), signals(), log);
    expect(handler).toHaveBeenCalledTimes(1);
    expect(again).toMatchObject({
      kind: 'result',
      result: { requestId: 'req-1', attempts: 0, response: ok.response },
    });
  });

  it('answers a paid request read again under a foreign framing id with its outcome, and reports the framing', async () => {
    const handler = vi.fn(() => Promise.resolve(ok));
    const mismatches: unknown[] = [];
    const { deps } = setup(handler, {
      // What the registry codec gives for a request framed with an id naming another subject's schema.
      decodeValue: async (value) => ({
        value: (await plainJsonCodec().readRequest(value)).value,
        mismatch: { schemaId: 7, kind: 'foreign' },
      }),
      onFramingMismatch: (operation, mismatch) => mismatches.push({ operation, ...mismatch }),
    });
    await processRequest(deps, incoming(request), signals(), log);
    const again = await processRequest(deps, incoming(request), signals(), log);
    expect(handler).toHaveBeenCalledTimes(1);
    expect(again).toMatchObject({ kind: 'result', result: { requestId: 'req-1', attempts: 0 } });
    expect(mismatches).toEqual([
      { operation: 'lawsuits-summary', schemaId: 7, kind: 'foreign' },
      { operation: 'lawsuits-summary', schemaId: 7, kind: 'foreign' },
    ]);
  });

  it('dead-letters an invalid request read under an unknown framing id, the reason naming the id too', async () => {
    const { deps } = setup(() => Promise.resolve(ok), {
      decodeValue: async (value) => ({
        value: (await plainJsonCodec().readRequest(value)).value,
        mismatch: { schemaId: 42, kind: 'unknown' },
      }),
    });
    const outcome = await processRequest(deps, incoming({ requestId: 'r-9', params: {} }), signals(), log);
    expect(outcome.kind === 'error' && outcome.error.error).toMatchObject({
      kind: 'invalid_request',
      message: expect.stringMatching(
        /^params: .*\(framed with schema id 42, unknown to the registry\)$/,
      ) as string,
    });
  });

  it('refuses a requestId already paid for by another operation, without calling', async () => {
    const handler = vi.fn(() => Promise.resolve(ok));
    const { deps } = setup(handler);
    await processRequest(deps, incoming(request), signals(), log);
    const other = { ...incoming(request), operation: 'company-partners' as const };
    const outcome = await processRequest(deps, other, signals(), log);
    expect(handler).toHaveBeenCalledTimes(1);
    expect(outcome).toMatchObject({
      kind: 'error',
      error: {
        operation: 'company-partners',
        error: {
          kind: 'invalid_request',
          code: 'REQUEST_ID_REUSED',
          message: 'requestId already used for another operation (lawsuits-summary)',
        },
        request,
      },
    });
  });

  it("opens a search's events again only for the message that paid, read again", async () => {
    const handler = vi.fn(() => Promise.resolve(ok));
    const { deps } = setup(handler);
    const first = await processRequest(deps, incoming(request), signals(), log);
    const redelivered = await processRequest(deps, incoming(request), signals(), log);
    const copy = { ...incoming(request), origin: { ...incoming(request).origin, offset: '8' } };
    const published = await processRequest(deps, copy, signals(), log);
    expect(handler).toHaveBeenCalledTimes(1);
    expect([first, redelivered, published]).toMatchObject([
      { kind: 'result', opensSearch: true, request },
      { kind: 'result', opensSearch: true, result: { attempts: 0 } },
      { kind: 'result', opensSearch: false, result: { attempts: 0 } },
    ]);
  });

  it('holds requests while the breaker is open instead of dead-lettering them', async () => {
    let healthy = false;
    const handler = vi.fn(() =>
      healthy
        ? Promise.resolve(ok)
        : Promise.reject(new AppError('upstream_unavailable', 'down', { retryable: true, httpStatus: 500 })),
    );
    const { deps, breakers } = setup(handler, {
      retry: { maxAttempts: 100, baseDelayMs: 1, maxDelayMs: 1, budgetMs: 60_000 },
    });
    const breaker = breakers.get('lawsuits-summary')!;
    const opened = new Promise<void>((resolve) => breaker.once('open', resolve));
    const pending = processRequest(deps, incoming(request), signals(), log);
    await opened;
    healthy = true;
    const outcome = await pending;
    expect(outcome).toMatchObject({ kind: 'result', result: { status: 'ok' } });
    expect(breaker.state).toBe('closed');
  });

  it("leaves another request's breaker probe alone when its own call ends telling nothing of the vendor", async () => {
    let fail: (error: Error) => void = () => undefined;
    const handler = vi.fn<Handler>(
      () =>
        new Promise((_resolve, reject) => {
          fail = reject;
        }),
    );
    const breaker = new CircuitBreaker({ failureThreshold: 1, cooldownMs: 5 });
    const { deps } = setup(handler, { breakerFor: () => breaker });
    const pending = processRequest(deps, incoming(request), signals(), log);
    await vi.waitFor(() => {
      expect(handler).toHaveBeenCalledTimes(1);
    });
    // Meanwhile other calls failed: the breaker opened, cooled down, and another request took the probe.
    const halfOpen = new Promise<void>((resolve) => breaker.once('half-open', resolve));
    breaker.recordFailure();
    await halfOpen;
    await breaker.acquire();
    expect(breaker.needsProbe()).toBe(false);

    fail(new AppError('invalid_request', 'rejected by the vendor', { retryable: false, httpStatus: 400 }));

    await expect(pending).resolves.toMatchObject({ kind: 'error' });
    expect(breaker.needsProbe()).toBe(false);
  });

  it('reports aborted work so that it is not completed', async () => {
    const controller = new AbortController();
    const handler: Handler = (_p, { signal }) =>
      new Promise((_resolve, reject) => {
        signal.addEventListener('abort', () => {
          reject(new Error('aborted'));
        });
      });
    const { deps } = setup(handler);
    const pending = processRequest(
      deps,
      incoming(request),
      signals(controller.signal, controller.signal),
      log,
    );
    controller.abort();
    await expect(pending).resolves.toEqual({ kind: 'aborted' });
  });

  it('lets a call under way finish and stores its paid outcome when only the wait is aborted (revocation)', async () => {
    const revoked = new AbortController();
    let finish: (outcome: HandlerOutcome) => void = () => undefined;
    let started: () => void = () => undefined;
    const running = new Promise<void>((resolve) => (started = resolve));
    const handler = vi.fn<Handler>(
      (_p, { signal }) =>
        new Promise((resolve, reject) => {
          started();
          finish = resolve;
          signal.addEventListener('abort', () => {
            reject(new Error('aborted'));
          });
        }),
    );
    const { deps } = setup(handler);
    const pending = processRequest(deps, incoming(request), signals(revoked.signal), log);
    await running;
    revoked.abort();
    finish(ok);
    await expect(pending).resolves.toMatchObject({ kind: 'result' });
    // The partition's next owner reads the same request: it reuses the outcome, no second call.
    const next = await processRequest(deps, incoming(request), signals(), log);
    expect(next).toMatchObject({ kind: 'result', result: { attempts: 0, response: ok.response } });
    expect(handler).toHaveBeenCalledTimes(1);
  });

  it('does not start a call once the wait is aborted', async () => {
    const revoked = new AbortController();
    revoked.abort();
    const handler = vi.fn(() => Promise.resolve(ok));
    const { deps } = setup(handler);
    const outcome = await processRequest(deps, incoming(request), signals(revoked.signal), log);
    expect(outcome).toEqual({ kind: 'aborted' });
    expect(handler).not.toHaveBeenCalled();
  });

  describe('the claim runs while the call waits for its slot', () => {
    /** A claim answered when the test says, and the reservation it may give. */
    function pendingClaim() {
      let answer: (claim: Claim) => void = () => undefined;
      let fail: (error: Error) => void = () => undefined;
      const released = vi.fn(() => Promise.resolve());
      const completed = vi.fn(() => Promise.resolve());
      const reservation: Reservation = { complete: completed, release: released };
      const claims = vi.fn(
        () =>
          new Promise<Claim>((resolve, reject) => {
            answer = resolve;
            fail = reject;
          }),
      );
      const idempotency: IdempotencyStore = { claim: claims, settle: () => Promise.resolve() };
      return {
        idempotency,
        claims,
        reservation,
        released,
        completed,
        answer: (claim: Claim) => {
          answer(claim);
        },
        fail: (error: Error) => {
          fail(error);
        },
      };
    }

    /**
     * A limiter whose call waits in its queue until the request's wait is aborted; having asked
     * for its slot (which sets the claim going) when `asksForSlot`.
     */
    function queueUntilAborted({ asksForSlot }: { asksForSlot: boolean }): ScheduleLimiter {
      return {
        schedule: (_fn, options) =>
          new Promise((_resolve, reject) => {
            if (asksForSlot) options?.beforeStart?.begin();
            options?.signal?.addEventListener('abort', () => {
              reject(new Error('aborted in the queue'));
            });
          }),
        backoff: () => undefined,
      };
    }

    /** A request whose call waits in a queueUntilAborted limiter until `revoked` aborts. */
    function waitingInQueue(limiter: { asksForSlot: boolean }) {
      const claim = pendingClaim();
      const revoked = new AbortController();
      const handler = vi.fn(() => Promise.resolve(ok));
      const { deps } = setup(handler, {
        idempotency: claim.idempotency,
        limiterFor: () => queueUntilAborted(limiter),
      });
      const pending = processRequest(deps, incoming(request), signals(revoked.signal), log);
      return { claim, revoked, handler, pending };
    }

    /**
     * A limiter that asks for a slot (beginning the gate, as the real one does with its slot's
     * round trip), starts fn once the gate is done, and records what it was asked.
     */
    function readyLimiter() {
      const asked: { ready: Promise<unknown> | undefined }[] = [];
      const limiter: ScheduleLimiter = {
        schedule: async (fn, options) => {
          asked.push({ ready: options?.beforeStart?.done });
          options?.beforeStart?.begin();
          await options?.beforeStart?.done;
          return fn({ confirm: () => undefined, renewals: 0 });
        },
        backoff: () => undefined,
      };
      return { limiter, asked };
    }

    /** A request whose call has asked the limiter for a slot while its claim is unanswered. */
    async function waitingForClaim() {
      const claim = pendingClaim();
      const { limiter, asked } = readyLimiter();
      const handler = vi.fn(() => Promise.resolve(ok));
      const { deps } = setup(handler, { idempotency: claim.idempotency, limiterFor: () => limiter });
      const pending = processRequest(deps, incoming(request), signals(), log);
      await vi.waitFor(() => {
        expect(asked).toHaveLength(1);
      });
      return { claim, asked, handler, pending };
    }

    it('asks for a slot before the claim answers, and calls only once it is a reservation', async () => {
      const { claim, asked, handler, pending } = await waitingForClaim();
      expect(asked[0]?.ready).toBeInstanceOf(Promise);
      await new Promise((resolve) => setTimeout(resolve, 5));
      expect(handler).not.toHaveBeenCalled();
      claim.answer({ reservation: claim.reservation });
      await expect(pending).resolves.toMatchObject({ kind: 'result', result: { attempts: 1 } });
      expect(handler).toHaveBeenCalledTimes(1);
      expect(claim.completed).toHaveBeenCalledTimes(1);
    });

    it('reuses an outcome already paid without calling, though it had asked for a slot', async () => {
      const { claim, handler, pending } = await waitingForClaim();
      claim.answer({ paid: { paramsHash: null, outcome: ok } });
      await expect(pending).resolves.toMatchObject({
        kind: 'result',
        result: { attempts: 0, response: ok.response },
      });
      expect(handler).not.toHaveBeenCalled();
    });

    it('waits for another copy holding the reservation before asking again, then calls once', async () => {
      const reservation: Reservation = {
        complete: () => Promise.resolve(),
        release: () => Promise.resolve(),
      };
      const answers: Claim[] = [undefined, { reservation }];
      const claims = vi.fn(() => Promise.resolve(answers.shift()));
      const slept = vi.fn((_ms: number) => Promise.resolve());
      const handler = vi.fn(() => Promise.resolve(ok));
      const { deps } = setup(handler, {
        idempotency: { claim: claims, settle: () => Promise.resolve() },
        sleep: slept,
      });
      await expect(processRequest(deps, incoming(request), signals(), log)).resolves.toMatchObject({
        kind: 'result',
        result: { attempts: 1 },
      });
      expect(claims).toHaveBeenCalledTimes(2);
      expect(slept).toHaveBeenCalledTimes(1);
      expect(handler).toHaveBeenCalledTimes(1);
    });

    it('throws a failing store to the runtime instead of dead-lettering, and calls nothing', async () => {
      const claim = pendingClaim();
      const handler = vi.fn(() => Promise.resolve(ok));
      const { deps } = setup(handler, { idempotency: claim.idempotency });
      const pending = processRequest(deps, incoming(request), signals(), log);
      await vi.waitFor(() => {
        expect(claim.claims).toHaveBeenCalledTimes(1);
      });
      claim.fail(new Error('redis down'));
      await expect(pending).rejects.toThrow('redis down');
      expect(handler).not.toHaveBeenCalled();
    });

    it('throws to the runtime when Redis gives no slot: no dead letter, no retry, the breaker not charged', async () => {
      const claim = pendingClaim();
      const handler = vi.fn(() => Promise.resolve(ok));
      let scheduled = 0;
      const limiter: ScheduleLimiter = {
        schedule: (_fn, options) => {
          scheduled += 1;
          options?.beforeStart?.begin();
          return Promise.reject(new QuotaUnavailableError(new Error('redis down')));
        },
        backoff: () => undefined,
      };
      // One failure would open it: a charge would show as an open breaker.
      const breaker = new CircuitBreaker({ failureThreshold: 1, cooldownMs: 60_000 });
      const { deps } = setup(handler, {
        idempotency: claim.idempotency,
        limiterFor: () => limiter,
        breakerFor: () => breaker,
      });
      const pending = processRequest(deps, incoming(request), signals(), log);
      await vi.waitFor(() => {
        expect(claim.claims).toHaveBeenCalledTimes(1);
      });
      claim.answer({ reservation: claim.reservation });
      await expect(pending).rejects.toBeInstanceOf(QuotaUnavailableError);
      expect(scheduled).toBe(1);
      expect(claim.released).toHaveBeenCalledTimes(1);
      expect(handler).not.toHaveBeenCalled();
      expect(breaker.state).toBe('closed');
    });

    it('gives back a reservation that answers after the wait for a slot was aborted', async () => {
      const { claim, revoked, handler, pending } = waitingInQueue({ asksForSlot: true });
      await vi.waitFor(() => {
        expect(claim.claims).toHaveBeenCalledTimes(1);
      });
      revoked.abort();
      await new Promise((resolve) => setTimeout(resolve, 5));
      claim.answer({ reservation: claim.reservation });
      await expect(pending).resolves.toEqual({ kind: 'aborted' });
      expect(claim.released).toHaveBeenCalledTimes(1);
      expect(handler).not.toHaveBeenCalled();
    });

    it('sends the claim only as the limiter asks for the slot, so both share a round trip', async () => {
      const claim = pendingClaim();
      let askForSlot: () => void = () => undefined;
      const limiter: ScheduleLimiter = {
        schedule: (fn, options) =>
          new Promise((resolve, reject) => {
            askForSlot = () => {
              options?.beforeStart?.begin();
              fn({ confirm: () => undefined, renewals: 0 }).then(resolve, reject);
            };
          }),
        backoff: () => undefined,
      };
      const handler = vi.fn(() => Promise.resolve(ok));
      const { deps } = setup(handler, { idempotency: claim.idempotency, limiterFor: () => limiter });
      const pending = processRequest(deps, incoming(request), signals(), log);
      await new Promise((resolve) => setTimeout(resolve, 5));
      expect(claim.claims).not.toHaveBeenCalled();

      askForSlot();
      expect(claim.claims).toHaveBeenCalledTimes(1);
      claim.answer({ reservation: claim.reservation });
      await expect(pending).resolves.toMatchObject({ kind: 'result', result: { attempts: 1 } });
      expect(handler).toHaveBeenCalledTimes(1);
    });

    it('sends no claim, and so holds nothing to give back, when the wait ends before a slot is asked for', async () => {
      const { claim, revoked, pending } = waitingInQueue({ asksForSlot: false });
      await new Promise((resolve) => setTimeout(resolve, 5));
      revoked.abort();
      await expect(pending).resolves.toEqual({ kind: 'aborted' });
      expect(claim.claims).not.toHaveBeenCalled();
      expect(claim.released).not.toHaveBeenCalled();
    });

    it('lets go of a claim sent after the call gave up waiting (a job that woke after its limiter closed)', async () => {
      const claim = pendingClaim();
      let wake: () => void = () => undefined;
      const limiter: ScheduleLimiter = {
        schedule: (_fn, options) =>
          new Promise((_resolve, reject) => {
            wake = () => options?.beforeStart?.begin();
            reject(new Error('limiter closed'));
          }),
        backoff: () => undefined,
      };
      const handler = vi.fn(() => Promise.resolve(ok));
      const { deps } = setup(handler, { idempotency: claim.idempotency, limiterFor: () => limiter });
      const outcome = await processRequest(deps, incoming(request), signals(), log);
      expect(outcome).toMatchObject({ kind: 'error' });
      expect(claim.claims).not.toHaveBeenCalled();

      wake();
      expect(claim.claims).toHaveBeenCalledTimes(1);
      claim.answer({ reservation: claim.reservation });
      await vi.waitFor(() => {
        expect(claim.released).toHaveBeenCalledTimes(1);
      });
      expect(handler).not.toHaveBeenCalled();
    });

    it('does not wait for an open breaker when the outcome is already paid', async () => {
      const claim = pendingClaim();
      const breaker = new CircuitBreaker({ failureThreshold: 1, cooldownMs: 60_000 });
      breaker.recordFailure();
      expect(breaker.state).toBe('open');
      const handler = vi.fn(() => Promise.resolve(ok));
      const { deps } = setup(handler, { idempotency: claim.idempotency, breakerFor: () => breaker });
      const pending = processRequest(deps, incoming(request), signals(), log);
      await vi.waitFor(() => {
        expect(claim.claims).toHaveBeenCalledTimes(1);
      });
      claim.answer({ paid: { paramsHash: null, outcome: ok } });
      await expect(pending).resolves.toMatchObject({ kind: 'result', result: { attempts: 0 } });
      expect(handler).not.toHaveBeenCalled();
    });
  });
});
