import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Origin } from '../contract/envelopes.js';
import type { CreatedSearch } from '../handlers/index.js';
import type { ScheduleLimiter, Slot } from '../limits/types.js';
import type { VendorClient } from '../vendor-api/client.js';
import type { VehicleSearchWebhook } from '../vendor-api/operations/vehicle-async.js';
import { within } from '../within.js';
import { nextPollAt, type PollSchedule } from './backoff.js';
import { settleSearch, type CompletionDeps } from './completion.js';
import type { EventPublisher } from './event-publisher.js';
import type { PendingSearch, PendingStore } from './pending-store.js';
import { createPoller, wakingStore, type Poller } from './poller.js';
import { createSinkGuard, type SinkLimits } from './sink-guard.js';
import { registerSinkRoutes, type SinkDeps } from './sink-routes.js';
import { withStoreRetries } from './store-retries.js';
import { resolvePublicUrl, webhookTarget, type WebhookMethod } from './webhook-target.js';

/** The settings of `createVehicleSearchTracker`. */
export interface TrackerSettings {
  /** WEBHOOK_PUBLIC_URL; absent: searches are created without webhook and only polled. */
  publicUrl?: string | undefined;
  secret?: string | undefined;
  method: WebhookMethod;
  pollBaseMs: number;
  pollMaxMs: number;
  expiryMs: number;
  claimTtlMs: number;
  /** How long a finished search is remembered, to answer late webhook calls with 200. */
  doneTtlMs: number;
  /** WEBHOOK_FETCH_INTERVAL_MS: one webhook-driven vendor GET per search per interval. */
  webhookFetchIntervalMs: number;
  sinkLimits: SinkLimits;
}

export interface TrackerDeps {
  vendor: Pick<VendorClient, 'getVehicleSearch'>;
  store: PendingStore;
  publisher: EventPublisher;
  /** The vehicle-async limiter: polls count against the vendor's rate like any call. */
  limiter?: Pick<ScheduleLimiter, 'schedule'> | undefined;
  settings: TrackerSettings;
  logger: Logger;
  now?: () => number;
  /**
   * Whether the consumer group has committed past the request message (request-commit.ts):
   * a search's final event waits for it, so that its `pending` event comes first.
   */
  isRequestCommitted(origin: Origin): Promise<boolean>;
}

export interface VehicleSearchTracker {
  /** Defined when WEBHOOK_PUBLIC_URL is set; usable once start() resolved. */
  readonly webhookFor: ((requestId: string) => VehicleSearchWebhook) | undefined;
  onSearchCreated(search: CreatedSearch, signal: AbortSignal): Promise<void>;
  /** Before the server listens; with WEBHOOK_PUBLIC_URL port 0 the bound port is read from it. */
  registerRoutes(app: FastifyInstance): void;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** Below the HTTP server's 10 s request timeout (observability/http-server.ts). */
const WEBHOOK_HANDLING_MS = 8_000;
const RECORD_ATTEMPTS = 4;
/** Searches taken per scan, and settled at once (each one vendor GET). */
const POLLER_BATCH = { batchSize: 32, concurrency: 4 };
/**
 * The poller's longest sleep: how late it sees a search that another replica wrote and died
 * before taking (one it took is late by its lease, the claim TTL, anyway).
 */
const POLLER_IDLE_MS = 10_000;

/**
 * The completion of vehicle-async searches: records each created search, gives the handler
 * the webhook to create it with, settles it on the webhook call or by polling, and publishes
 * its final event (completed, failed or expired) once.
 */
export function createVehicleSearchTracker(input: TrackerDeps): VehicleSearchTracker {
  const wake = { dueAt: (_at: number): void => undefined };
  // Every search this process records or reschedules wakes the poller by its due time.
  const deps = {
    ...input,
    store: wakingStore(input.store, (at) => {
      wake.dueAt(at);
    }),
  };
  const { settings, store, logger } = deps;
  const now = deps.now ?? Date.now;
  const schedule: PollSchedule = {
    baseMs: settings.pollBaseMs,
    maxMs: settings.pollMaxMs,
    expiryMs: settings.expiryMs,
  };
  const completion = completionDeps(deps, schedule, now);
  const poller = trackerPoller(deps, completion, now);
  wake.dueAt = (at) => {
    poller.dueAt(at);
  };
  const webhook = webhookOf(settings);
  const state: { app?: FastifyInstance; target?: (requestId: string) => VehicleSearchWebhook } = {};
  let accepting = false;

  return {
    webhookFor: webhook && ((requestId) => (state.target ?? notStarted)(requestId)),
    onSearchCreated: (search, signal) => recordSearch(deps, schedule, toPending(search, now()), signal),
    registerRoutes(app) {
      if (!webhook) return;
      state.app = app;
      registerSinkRoutes(
        app,
        sinkDeps(deps, completion, webhook.secret, () => accepting),
      );
    },
    async start() {
      if (webhook) {
        const publicUrl = resolvePublicUrl(webhook.publicUrl, boundPort(state.app));
        state.target = webhookTarget({
          ...webhook,
          publicUrl,
          method: settings.method,
          now: () => new Date(now()),
        });
      }
      await deps.publisher.connect();
      accepting = true;
      poller.start();
      logger.info(
        { webhooks: webhook !== undefined, pollMs: settings.pollBaseMs },
        'vehicle search tracker started',
      );
    },
    async stop() {
      accepting = false;
      await poller.stop();
      await deps.publisher.disconnect();
      await store.close();
    },
  };
}

function trackerPoller(deps: TrackerDeps, completion: CompletionDeps, now: () => number): Poller {
  return createPoller({
    store: deps.store,
    settle: (requestId, signal) => settleSearch(completion, requestId, 'poll', signal),
    // A scan a second at most: the expiry is kept to about a second.
    intervalMs: Math.min(1_000, deps.settings.pollBaseMs),
    idleMs: POLLER_IDLE_MS,
    ...POLLER_BATCH,
    leaseMs: deps.settings.claimTtlMs,
    now,
    logger: deps.logger,
  });
}

/** Webhooks are asked for only with both a public URL and a secret; else searches are polled. */
function webhookOf(settings: TrackerSettings): { publicUrl: string; secret: string } | undefined {
  return settings.publicUrl !== undefined && settings.secret !== undefined
    ? { publicUrl: settings.publicUrl, secret: settings.secret }
    : undefined;
}

function sinkDeps(
  deps: TrackerDeps,
  completion: CompletionDeps,
  secret: string,
  accepting: () => boolean,
): SinkDeps {
  const { settings, store, logger } = deps;
  return {
    secret,
    store,
    settle: (requestId, signal) => settleSearch(completion, requestId, 'webhook', signal),
    handlingTimeoutMs: WEBHOOK_HANDLING_MS,
    // A signature expires with its search: no call after the expiry can change the outcome.
    signatureMaxAgeMs: settings.expiryMs + settings.claimTtlMs,
    fetchIntervalMs: settings.webhookFetchIntervalMs,
    guard: createSinkGuard(settings.sinkLimits, logger),
    now: deps.now ?? Date.now,
    logger,
    accepting,
  };
}

function notStarted(): never {
  throw new Error('vehicle search tracker not started: call start() once the HTTP server listens');
}

function completionDeps(deps: TrackerDeps, schedule: PollSchedule, now: () => number): CompletionDeps {
  const { limiter, vendor, settings } = deps;
  // Polls count against the operation's rate and spend cap like any vendor call. The wait for
  // the limiter and the call together get half the claim's lifetime: a claim that lapsed while
  // its owner still waited would let a second replica settle the same search.
  const budgetMs = Math.floor(settings.claimTtlMs / 2);
  // The commit check comes first under the same claim, so it is bounded too.
  const checkMs = Math.floor(settings.claimTtlMs / 4);
  const fetchSearch: CompletionDeps['fetchSearch'] = (searchId, signal) => {
    const bounded = AbortSignal.any([signal, AbortSignal.timeout(budgetMs)]);
    // A poll, like a search, leaves only if it still fits its slot (Slot.confirm).
    const call = (slot?: Slot) =>
      vendor.getVehicleSearch(searchId, { signal: bounded, beforeSend: slot?.confirm });
    return limiter ? limiter.schedule(call, { signal: bounded }) : call();
  };
  return {
    store: deps.store,
    fetchSearch,
    isRequestCommitted: (origin) =>
      within(deps.isRequestCommitted(origin), checkMs, `commit check timed out after ${String(checkMs)} ms`),
    publish: (event, correlation) => deps.publisher.publish(event, correlation),
    schedule,
    claimTtlMs: settings.claimTtlMs,
    doneTtlMs: settings.doneTtlMs,
    owner: randomUUID(),
    now,
    logger: deps.logger,
  };
}

function toPending(search: CreatedSearch, createdAt: number): PendingSearch {
  const { correlation } = search;
  return {
    requestId: search.requestId,
    searchId: search.searchId,
    createdAt,
    key: correlation?.key ? correlation.key.toString('base64') : null,
    ...(correlation?.traceparent === undefined ? {} : { traceparent: correlation.traceparent }),
    ...(search.metadata ? { metadata: { ...search.metadata } } : {}),
    ...(search.origin === undefined ? {} : { origin: { ...search.origin } }),
    polls: 0,
  };
}

/** A few quick tries: the search is paid for, and giving up means creating it again. */
async function recordSearch(
  deps: TrackerDeps,
  schedule: PollSchedule,
  search: PendingSearch,
  signal: AbortSignal,
): Promise<void> {
  const dueAt = nextPollAt(schedule, search, search.createdAt);
  await withStoreRetries(() => deps.store.add(search, dueAt), {
    tries: RECORD_ATTEMPTS,
    firstDelayMs: 200,
    signal,
    onRetry: (error, attempt) => {
      deps.logger.warn(
        { err: error, requestId: search.requestId, attempt },
        'could not record a vehicle search; retrying',
      );
    },
  });
  deps.logger.debug({ requestId: search.requestId, searchId: search.searchId }, 'vehicle search recorded');
}

function boundPort(app: FastifyInstance | undefined): number | undefined {
  const address = app?.server.address();
  return typeof address === 'object' && address ? address.port : undefined;
}
