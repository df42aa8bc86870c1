import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Origin, VehicleSearchEvent } from '../contract/envelopes.js';
import type { VendorResult } from '../vendor-api/types.js';
import type { VehicleSearchResponse } from '../vendor-api/schemas/vehicle.js';
import { expiresAt, nextPollAt, type PollSchedule } from './backoff.js';
import type { PendingSearch, PendingStore } from './pending-store.js';
import { withoutWebhookSecrets } from './signature.js';
import { withStoreRetries } from './store-retries.js';

/**
 * Settles one search: claim it, fetch it from the vendor, and publish its final event once.
 *
 * Exactly once per search, across duplicate webhook calls and replicas:
 *  - the claim (SET NX with a TTL, renewed while the worker is at it) lets one worker at a
 *    time past this point;
 *  - under the claim the search is read again: one finished meanwhile is gone, so a worker
 *    that read it before the finish publishes nothing;
 *  - publish, then finish (forget the search, set the done marker), then release.
 * A crash after the claim loses nothing: the search stays due, and the claim lapses after its
 * TTL. The one gap is a crash between the broker's ack and the finish (milliseconds): the
 * search is then published again, the only duplicate possible, as with any write to two systems.
 * The vendor's answer is the source of truth; the webhook's payload is never read.
 *
 * Nothing is settled before the request that created the search is committed. Its `pending`
 * event is written by the consumer runtime in the transaction that commits the request's
 * offset, one transaction after the search is recorded here; a fast vendor would
 * otherwise let the final event reach readers first. A committed offset past the request
 * proves the `pending` event visible to read_committed readers.
 */
export type Via = 'webhook' | 'poll';
type FinalStatus = 'completed' | 'failed' | 'expired';

/**
 * How soon a search whose request is not committed yet is tried again: the runtime commits a
 * completed request as soon as the previous transaction has finished (rounds at most
 * COMMIT_MAX_INTERVAL_MS apart, 100 ms by default), so this wait is short, unlike a poll's
 * backoff.
 */
export const COMMIT_WAIT_MS = 500;

export type Settlement =
  | { kind: 'published'; status: FinalStatus }
  /**
   * Still pending at the vendor, the vendor failed, or the request that created the search is
   * not committed yet: rescheduled, no event.
   */
  | { kind: 'pending' | 'vendor-error' | 'uncommitted' }
  /** Another worker holds the claim. */
  | { kind: 'busy' }
  /** Finished or replaced by another worker meanwhile. */
  | { kind: 'gone' };

export interface CompletionDeps {
  store: PendingStore;
  fetchSearch(searchId: string, signal: AbortSignal): Promise<VendorResult<VehicleSearchResponse>>;
  publish(
    event: VehicleSearchEvent,
    correlation: { key: Buffer | null; traceparent?: string },
  ): Promise<void>;
  /** Whether the consumer group has committed past the request message. */
  isRequestCommitted(origin: Origin): Promise<boolean>;
  schedule: PollSchedule;
  claimTtlMs: number;
  doneTtlMs: number;
  /** This replica's name in claim tokens (each settlement adds its own part). */
  owner: string;
  now(): number;
  random?: () => number;
  logger: Logger;
}

export async function settleSearch(
  deps: CompletionDeps,
  requestId: string,
  via: Via,
  signal: AbortSignal,
): Promise<Settlement> {
  // A token of this settlement's own: two settlements of one search in this process (the
  // first one's claim lost with Redis's last second of writes) must not hold it as one.
  const owner = `${deps.owner}:${randomUUID()}`;
  if (!(await deps.store.claim(requestId, owner, deps.claimTtlMs))) return { kind: 'busy' };
  // Held while this worker lives, however long the publish takes (the Kafka client retries a send for
  // much longer than the claim's TTL): a claim lapsing under a publish still under way would
  // let another worker publish the same final event. A crash stops the renewals and the claim
  // lapses as before.
  const renewals = setInterval(() => {
    deps.store.extend(requestId, owner, deps.claimTtlMs).catch((error: unknown) => {
      deps.logger.warn({ err: error, requestId }, 'could not renew a vehicle search claim');
    });
  }, deps.claimTtlMs / 3);
  renewals.unref();
  try {
    const search = await deps.store.get(requestId);
    if (!search) return { kind: 'gone' };
    if (via === 'webhook') {
      // Due again when the claim lapses: should this process die now, the poller takes over
      // at once instead of at the search's (possibly distant) next poll.
      await deps.store.reschedule(search, deps.now() + deps.claimTtlMs);
    }
    return await settleClaimed(deps, { search, owner }, via, signal);
  } finally {
    clearInterval(renewals);
    await deps.store.release(requestId, owner).catch((error: unknown) => {
      deps.logger.warn({ err: error, requestId }, 'could not release a vehicle search claim; it lapses');
    });
  }
}

/** `owner`: this settlement's claim token (not the replica's name, `deps.owner`). */
async function settleClaimed(
  deps: CompletionDeps,
  { search, owner }: { search: PendingSearch; owner: string },
  via: Via,
  signal: AbortSignal,
): Promise<Settlement> {
  // Before the vendor call, so that waiting for the commit spends no vendor call; and before
  // the expiry, which must not fire ahead of the `pending` event either. An entry without
  // origin predates the field: its request was committed long ago.
  if (search.origin && !(await deps.isRequestCommitted(search.origin))) {
    await deps.store.reschedule(search, deps.now() + COMMIT_WAIT_MS);
    return { kind: 'uncommitted' };
  }
  const expired = deps.now() >= expiresAt(deps.schedule, search);
  const fetched = await fetchStatus(deps, search, signal);
  const status = fetched.status ?? (expired ? 'expired' : undefined);
  if (status === undefined) {
    const next = { ...search, polls: search.polls + 1 };
    await deps.store.reschedule(next, nextPollAt(deps.schedule, next, deps.now(), deps.random));
    return { kind: fetched.failed ? 'vendor-error' : 'pending' };
  }
  const event: VehicleSearchEvent = {
    requestId: search.requestId,
    searchId: search.searchId,
    status,
    via,
    ...(fetched.response === undefined ? {} : { response: withoutWebhookSecrets(fetched.response) }),
    at: new Date(deps.now()).toISOString(),
    ...(search.metadata ? { metadata: search.metadata } : {}),
  };
  // Still ours just before publishing: a claim Redis lost (a fail-over, a restart without its
  // last second of writes) may be another worker's by now, which would publish too.
  if (!(await deps.store.extend(search.requestId, owner, deps.claimTtlMs))) return { kind: 'busy' };
  await deps.publish(event, {
    key: search.key === null ? null : Buffer.from(search.key, 'base64'),
    ...(search.traceparent === undefined ? {} : { traceparent: search.traceparent }),
  });
  await markDone(deps, search);
  deps.logger.info(
    { requestId: search.requestId, searchId: search.searchId, status, via },
    'vehicle search final event published',
  );
  return { kind: 'published', status };
}

/**
 * Marks a published search done, tried again on a failure: left recorded, it is due again
 * when the claim lapses, and its final event would be published a second time.
 */
async function markDone(deps: CompletionDeps, search: PendingSearch): Promise<void> {
  try {
    await withStoreRetries(() => deps.store.finish(search.requestId, search.searchId, deps.doneTtlMs), {
      tries: 5,
      firstDelayMs: 200,
    });
  } catch (error) {
    deps.logger.error(
      { err: error, requestId: search.requestId, searchId: search.searchId },
      'vehicle search event published but not marked done; it may be published again',
    );
  }
}

interface Fetched {
  /** Final status the vendor reports; undefined while pending or when the call failed. */
  status?: 'completed' | 'failed';
  response?: unknown;
  failed: boolean;
}

async function fetchStatus(
  deps: CompletionDeps,
  search: PendingSearch,
  signal: AbortSignal,
): Promise<Fetched> {
  try {
    const result = await deps.fetchSearch(search.searchId, signal);
    if (result.outcome !== 'ok') return { failed: true };
    const vendorStatus = result.body.data.status;
    if (vendorStatus === 'pending') return { response: result.raw, failed: false };
    // `sucessful` is the vendor's spelling (vendor-api.md, "States and transitions").
    return {
      status: vendorStatus === 'sucessful' ? 'completed' : 'failed',
      response: result.raw,
      failed: false,
    };
  } catch (error) {
    // Retried at the next poll, without an event (the rule for vendor errors).
    deps.logger.warn(
      { err: error, requestId: search.requestId, searchId: search.searchId },
      'vehicle search fetch failed; retrying at the next poll',
    );
    return { failed: true };
  }
}
