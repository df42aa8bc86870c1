import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { Logger } from '../observability/logger.js';
import type { Counters } from './counters.js';
import { errorBody, errorVersionOf, type RequestState } from './envelope.js';
import type { SandboxKnobs } from './knobs.js';

export const ADMIN_PREFIX = '/__sandbox/';

/** Timers the sandbox holds requests on; cleared on close so nothing outlives the server. */
export class Holds {
  private readonly timers = new Set<NodeJS.Timeout>();

  after(ms: number, run: () => void): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      run();
    }, ms);
    this.timers.add(timer);
  }

  clear(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }
}

export interface HookDeps {
  apiKey: string;
  knobs: SandboxKnobs;
  counters: Counters;
  holds: Holds;
  /** Operation name of a matched route (`METHOD url-pattern`), undefined for unknown paths. */
  operationOf(method: string, routeUrl: string | undefined): string | undefined;
  logger: Logger | undefined;
}

/** Latency draw: uniform mean ± jitter, or normal with jitter as the deviation; never negative. */
export function sampleLatencyMs(knobs: SandboxKnobs, random: () => number = Math.random): number {
  const { latencyMeanMs: mean, latencyJitterMs: jitter } = knobs;
  if (jitter <= 0) return Math.max(0, mean);
  if (knobs.latencyDistribution === 'normal') {
    const u = 1 - random();
    const gaussian = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
    return Math.max(0, mean + gaussian * jitter);
  }
  return Math.max(0, mean + (random() * 2 - 1) * jitter);
}

function checkAuthorization(header: string | undefined, expected: string): string | undefined {
  if (header === expected) return undefined;
  if (header === undefined || header === '')
    return 'Missing Authorization header; send: Authorization: ApiKey <key>';
  const space = header.indexOf(' ');
  const scheme = space < 0 ? header : header.slice(0, space);
  if (scheme.toLowerCase() !== 'apikey')
    return 'Invalid authorization scheme; send: Authorization: ApiKey <key>';
  return header.slice(space + 1).trim() === expected.slice(7) ? undefined : 'Invalid API key';
}

function injectFault(deps: HookDeps, request: FastifyRequest, reply: FastifyReply): void {
  const { knobs, counters } = deps;
  const version = errorVersionOf(request.sandboxState.operation);
  request.sandboxState.injected = true;
  counters.recordFault();
  if (knobs.errorKind === 'reset') {
    reply.hijack();
    request.raw.socket.destroy();
    return;
  }
  if (knobs.errorKind === 'timeout') {
    // Holds the call open as a stalled upstream would; a caller's own timeout should fire first.
    deps.holds.after(knobs.timeoutHoldMs, () => {
      if (!request.raw.destroyed)
        void reply.code(504).send(errorBody(504, 'Upstream timed out (injected)', version));
    });
    return;
  }
  void reply.code(knobs.errorStatus).send(errorBody(knobs.errorStatus, 'Internal error (injected)', version));
}

/**
 * The hot path of every call: auth, rate limit, latency, fault injection. Callback style with
 * no promise or timer on the fast path, since benchmarks send thousands of calls per second.
 */
export function createOnRequest(deps: HookDeps) {
  const expected = `ApiKey ${deps.apiKey}`;
  const { knobs, counters } = deps;
  return function onRequest(
    request: FastifyRequest,
    reply: FastifyReply,
    done: HookHandlerDoneFunction,
  ): void {
    const now = Date.now();
    const state: RequestState = {
      startedAt: performance.now(),
      operation: undefined,
      second: Math.floor(now / 1000),
      arrivedAtMs: now,
      fingerprint: undefined,
      injected: false,
    };
    request.sandboxState = state;
    if (request.url.startsWith(ADMIN_PREFIX)) {
      done();
      return;
    }
    const acceptedInWindow = counters.recordAttempt(state.second);
    state.operation = deps.operationOf(request.method, request.routeOptions.url);
    const authProblem = checkAuthorization(request.headers.authorization, expected);
    if (authProblem !== undefined) {
      counters.recordUnauthorized();
      void reply.code(401).send(errorBody(401, authProblem, errorVersionOf(state.operation)));
      return;
    }
    const limit = knobs.rateLimitPerSecond;
    if (limit > 0 && acceptedInWindow >= limit) {
      counters.recordRateLimited();
      rejectRateLimited(reply, state, now, limit);
      return;
    }
    counters.recordAccepted(state.second);
    if (state.operation === undefined) {
      done();
      return;
    }
    delayOrFault(deps, request, reply, done);
  };
}

function rejectRateLimited(reply: FastifyReply, state: RequestState, now: number, limit: number): void {
  const retryAfter = Math.max(1, Math.ceil(((state.second + 1) * 1000 - now) / 1000));
  void reply
    .code(429)
    .header('retry-after', String(retryAfter))
    .send(
      errorBody(
        429,
        `Rate limit of ${String(limit)} requests per second exceeded`,
        errorVersionOf(state.operation),
      ),
    );
}

/** The configured latency, then an injected fault or the route; at once when there is neither. */
function delayOrFault(
  deps: HookDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  done: HookHandlerDoneFunction,
): void {
  const { knobs } = deps;
  const delay = knobs.latencyMeanMs > 0 || knobs.latencyJitterMs > 0 ? sampleLatencyMs(knobs) : 0;
  const fault = knobs.errorRate > 0 && Math.random() < knobs.errorRate;
  if (delay <= 0 && !fault) {
    done();
    return;
  }
  const proceed = (): void => {
    if (fault) injectFault(deps, request, reply);
    else done();
  };
  if (delay > 0) deps.holds.after(delay, proceed);
  else proceed();
}

/**
 * Bills 200 and 404 answers of operations without an injected fault. On send, not on response:
 * a caller that hangs up while the vendor works is billed all the same, as a real vendor bills
 * the work it did, and fastify runs no onResponse hook for a connection closed early.
 */
export function createOnSend(deps: Pick<HookDeps, 'counters' | 'logger'>) {
  const { counters, logger } = deps;
  const debug = logger?.isLevelEnabled('debug') === true;
  return function onSend<P>(
    request: FastifyRequest,
    reply: FastifyReply,
    payload: P,
    done: (error: null, payload: P) => void,
  ): void {
    // Null only when the framework failed the request before onRequest ran.
    const state = request.sandboxState as RequestState | null;
    if (state !== null && state.operation !== undefined) {
      const status = reply.statusCode;
      if (!state.injected && (status === 200 || status === 404)) {
        counters.recordBilled(state.second, state.operation, state.fingerprint, state.arrivedAtMs);
      }
      // Operation and status only: paths and queries carry tax ids.
      if (debug)
        logger.debug({ operation: state.operation, status, injected: state.injected }, 'sandbox call');
    }
    done(null, payload);
  };
}
