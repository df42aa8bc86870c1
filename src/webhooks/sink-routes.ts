import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { WEBHOOK_METHODS } from '../contract/vocabulary.js';
import type { Settlement } from './completion.js';
import type { PendingStore } from './pending-store.js';
import type { SinkGuard } from './sink-guard.js';
import { verifyWebhook } from './signature.js';
import { WEBHOOK_PATH } from './webhook-target.js';

/** What `registerSinkRoutes` depends on. */
export interface SinkDeps {
  secret: string;
  store: PendingStore;
  settle(requestId: string, signal: AbortSignal): Promise<Settlement>;
  /** False once the tracker stops. */
  accepting(): boolean;
  /** Bound on the work of one call, below the server's request timeout. */
  handlingTimeoutMs: number;
  /** A signature older than this is refused: a search's lifetime and a margin. */
  signatureMaxAgeMs: number;
  /** At most one webhook-driven vendor GET per search per interval, across replicas. */
  fetchIntervalMs: number;
  guard: SinkGuard;
  now?: () => number;
  logger: Logger;
}

const BODY_LIMIT_BYTES = 16 * 1024;
/**
 * Waits for a search another worker holds (usually a poll finishing its GET), or for the
 * commit of the request that created it (one transaction away): the event then goes out
 * now, via the webhook, instead of at the next poll.
 */
const BUSY_RETRIES = 5;
const BUSY_WAIT_MS = 150;

/**
 * The webhook sink. Answers:
 *   401  signature missing or wrong (nothing is looked up);
 *   404  signed, but no search is recorded for the request and none finished recently: a call
 *        that raced the recording of its search (a retrying vendor tries again; the poller
 *        settles it anyway), or one long past;
 *   200  the final event is published now, or was already (replays, duplicates): no new event;
 *   202  accepted without an event: a webhook fetched this search less than
 *        WEBHOOK_FETCH_INTERVAL_MS ago (replays cost no vendor call), still pending at the vendor, the vendor failed, another
 *        worker holds the search, or the request that created it is not committed yet (its
 *        `pending` event must come first); the poller finishes it;
 *   503  the service is stopping.
 * The payload is not read: the signed headers name the request, and the vendor's GET gives the
 * result. Any content type is accepted (the vendor's is unspecified); bad JSON is a 400.
 */
export function registerSinkRoutes(app: FastifyInstance, deps: SinkDeps): void {
  void app.register((scope, _options, done) => {
    // Only this scope: the payload is ignored, whatever its type, so no 415 for a vendor's choice.
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: BODY_LIMIT_BYTES }, (_r, body, next) => {
      next(null, body);
    });
    scope.route({
      method: [...WEBHOOK_METHODS],
      url: WEBHOOK_PATH,
      bodyLimit: BODY_LIMIT_BYTES,
      handler: (request, reply) => handleCall(deps, request, reply),
    });
    done();
  });
}

async function handleCall(
  deps: SinkDeps,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  // The signature first (an HMAC: microseconds): calls without one are refused without
  // spending the rate and concurrency the vendor's own calls need.
  const now = (deps.now ?? Date.now)();
  const verified = verifyWebhook(deps.secret, request.headers, { now, maxAgeMs: deps.signatureMaxAgeMs });
  if (!verified.ok) {
    deps.guard.rejected(verified.reason);
    return reply.code(401).send({ status: 'unauthorized' });
  }
  const admission = await deps.guard.admit();
  if (!admission.ok) {
    return reply
      .code(admission.code)
      .header('retry-after', String(admission.retryAfterS))
      .send({ status: 'busy' });
  }
  try {
    if (!deps.accepting()) return await reply.code(503).send({ status: 'stopping' });
    const answer = await answerFor(deps, verified.requestId);
    return await reply.code(answer.code).send({ status: answer.status });
  } finally {
    admission.release();
  }
}

async function answerFor(deps: SinkDeps, requestId: string): Promise<{ code: number; status: string }> {
  try {
    if (!(await deps.store.admitFetch(requestId, deps.fetchIntervalMs))) {
      // Fetched moments ago (a duplicate or a replay): no vendor call; the poller finishes it.
      return (await deps.store.doneSearch(requestId)) === undefined
        ? { code: 202, status: 'pending' }
        : { code: 200, status: 'done' };
    }
    const settled = await settleWaiting(deps, requestId);
    deps.logger.info({ requestId, outcome: settled.kind }, 'vehicle search webhook received');
    switch (settled.kind) {
      case 'published':
        return { code: 200, status: settled.status };
      case 'gone':
        return (await deps.store.doneSearch(requestId)) === undefined
          ? { code: 404, status: 'unknown' }
          : { code: 200, status: 'done' };
      case 'pending':
      case 'vendor-error':
      case 'busy':
      case 'uncommitted':
        return { code: 202, status: 'pending' };
    }
  } catch (error) {
    // Store or broker down: the search stays recorded and due, so the poller finishes it.
    deps.logger.error({ err: error, requestId }, 'vehicle search webhook failed');
    return { code: 503, status: 'unavailable' };
  }
}

async function settleWaiting(deps: SinkDeps, requestId: string): Promise<Settlement> {
  const signal = AbortSignal.timeout(deps.handlingTimeoutMs);
  let settled = await deps.settle(requestId, signal);
  for (let attempt = 0; isWaiting(settled) && attempt < BUSY_RETRIES && !signal.aborted; attempt++) {
    await sleep(BUSY_WAIT_MS);
    settled = await deps.settle(requestId, signal);
  }
  return settled;
}

function isWaiting(settled: Settlement): boolean {
  return settled.kind === 'busy' || settled.kind === 'uncommitted';
}
