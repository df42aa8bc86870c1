import type { Lane, Operation } from '../contract/operations.js';
import type { Logger } from '../observability/logger.js';
import { abortError, LimiterClosedError, SlotMissedError } from './errors.js';
import { JobBatcher } from './job-batcher.js';
import { QuotaAcquirer, type AcquireOptions, type HeldSlot, type LateRetries } from './quota-acquirer.js';
import type { QuotaStore } from './quota-store.js';
import { createSleeper } from './sleeper.js';
import type {
  LaneSettings,
  OperationLimiter,
  OperationLimitSettings,
  ScheduleOptions,
  Slot,
} from './types.js';
import { LANE_PRIORITY, LaneGate } from './lane-gate.js';

export interface OperationLimiterDeps {
  operation: Operation;
  settings: OperationLimitSettings;
  store: QuotaStore;
  shared: boolean;
  logger: Logger;
  now: () => number;
  /**
   * A call starting this much after its slot would crowd the calls after it; it takes a new
   * slot instead (a few times at most, so a lagging event loop cannot starve it).
   */
  lateToleranceMs: number;
  onSpendCap: (operation: Operation, resumeAt: number) => void;
  /** How the lanes share this operation's limit (bulkMinShare DEFAULT_BULK_MIN_SHARE when absent). */
  lanes?: LaneSettings | undefined;
}

/**
 * How far ahead either lane may have asked for slots, in time at the limit: at 300/s, 75
 * calls. It is how much of the pipeline (quota round trip, the claim, a busy event loop) bulk
 * alone keeps filled: at 100 ms (30 calls) bulk used 0.78 of the limit where one lane used 0.95,
 * at 250 ms 0.93 (bench lanes, 20k backlog, same runs). An interactive call takes a lent bulk
 * slot rather than wait behind them (LentSlots), so its wait does not grow with it; interactive
 * calls that alone would fill the limit leave room this way for the bulk calls of the reserved
 * share.
 */
export const LANE_LOOKAHEAD_MS = 250;

/** LANE_BULK_MIN_SHARE's default: a tenth of the limit for bulk calls while they wait. */
export const DEFAULT_BULK_MIN_SHARE = 0.1;

export interface ManagedOperationLimiter extends OperationLimiter {
  close(): Promise<void>;
}

/**
 * Bottleneck holds the queue and the local concurrency slots (JobBatcher); a job that has a
 * slot then takes a quota slot from the store and sleeps until it (QuotaAcquirer). Taking the
 * quota only once a concurrency slot is held bounds how far ahead a replica reserves, and a job
 * aborted while still queued never touches the quota. Ahead of both, the LaneGate orders the
 * lanes: interactive first, bulk within its lookahead and share.
 *
 * What "strict" means across replicas: on one replica, no bulk call asks for a slot while an
 * interactive call waits for one, an interactive call outranks every bulk call in the local
 * queue, and it takes the slot the next bulk call of this replica sleeps towards. Replicas
 * share only the quota, which answers in order of asking; so an interactive call on a replica
 * with no bulk slot to take may still find, per other replica, at most the lookahead
 * (LANE_LOOKAHEAD_MS of the limit) of bulk slots asked for before it. The limit itself is the
 * store's, whatever the lane: never exceeded in any sliding second.
 */
export function createOperationLimiter(deps: OperationLimiterDeps): ManagedOperationLimiter {
  const logger = deps.logger.child({ component: 'limits', operation: deps.operation });
  const sleeper = createSleeper(deps.now);
  const gate = new LaneGate(
    {
      bulkMinShare: deps.lanes?.bulkMinShare ?? DEFAULT_BULK_MIN_SHARE,
      lookahead: Math.max(1, Math.ceil((deps.settings.ratePerSecond * LANE_LOOKAHEAD_MS) / 1000)),
    },
    deps.now,
  );
  const parts: Parts = {
    quota: new QuotaAcquirer({ ...deps, logger, sleeper }),
    batcher: new JobBatcher(deps.settings.maxConcurrent, logger),
    gate,
    counts: { queued: 0, running: 0 },
  };
  let closed = false;
  return {
    schedule(fn, options = {}) {
      if (closed) return Promise.reject(new LimiterClosedError());
      return schedule(parts, fn, options);
    },
    backoff(ms) {
      if (!Number.isFinite(ms) || ms <= 0) return;
      parts.quota.backoff(ms);
    },
    get stats() {
      const { queued, running } = parts.counts;
      return {
        queued,
        running,
        started: parts.quota.startedThisHour(),
        lateSlots: parts.quota.lateSlots,
        lanes: { interactive: parts.gate.figures('interactive'), bulk: parts.gate.figures('bulk') },
      };
    },
    async close() {
      if (closed) return;
      closed = true;
      sleeper.cancelAll(new LimiterClosedError());
      parts.gate.drain(new LimiterClosedError());
      parts.quota.close();
      await parts.batcher.close();
    },
  };
}

interface Parts {
  quota: QuotaAcquirer;
  batcher: JobBatcher;
  gate: LaneGate;
  /** queued: accepted, not started; running: fn in flight. */
  counts: { queued: number; running: number };
}

/**
 * One call: queued in the batcher, then a quota slot (and `beforeStart`), then fn; or an abort,
 * a failure of `beforeStart` or close first.
 */
function schedule<T>(
  parts: Parts,
  fn: (slot: Slot) => Promise<T>,
  { signal, beforeStart, lane = 'interactive' }: ScheduleOptions,
): Promise<T> {
  const { quota, batcher, gate, counts } = parts;
  if (signal?.aborted) return Promise.reject(abortError(signal));
  counts.queued += 1;
  return new Promise<T>((resolve, reject) => {
    let waiting = true;
    const place = gatePlace(gate, lane);
    /** True for the one caller that ends the waiting (start, abort, failure or close). */
    const stopWaiting = (): boolean => {
      if (!waiting) return false;
      waiting = false;
      place.settle(false);
      counts.queued -= 1;
      signal?.removeEventListener('abort', onAbort);
      return true;
    };
    const fail = (error: unknown): void => {
      if (stopWaiting()) reject(error instanceof Error ? error : new Error(String(error)));
    };
    const onAbort = (): void => {
      if (signal) fail(abortError(signal));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    // Ends the waiting at once; a job already past the queue gives its slot back (acquire).
    beforeStart?.done.catch(fail);

    const job = async (): Promise<void> => {
      if (!waiting) return;
      const lateRetries: LateRetries = { count: 0 };
      const held = await quota
        .acquire(signal, { beforeStart, lateRetries, onReserved: place.onReserved, slots: place.slots() })
        .catch((error: unknown) => {
          fail(error);
        });
      if (held === undefined) return;
      place.settle(true);
      if (!stopWaiting()) {
        await quota.giveBack(held.token);
        return;
      }
      counts.running += 1;
      try {
        await run(quota, held, { lateRetries, slots: place.slots() }, fn, signal).then(resolve, reject);
      } finally {
        counts.running -= 1;
      }
    };
    place.enter(
      () => waiting,
      fail,
      (priority) => {
        batcher.enqueue({ job, fail }, priority);
      },
    );
  });
}

/** One call's place in the lane gate: entered once, settled once it no longer waits. */
function gatePlace(
  gate: LaneGate,
  lane: Lane,
): {
  enter(live: () => boolean, fail: (error: unknown) => void, hand: (priority: number) => void): void;
  settle(tookSlot: boolean): void;
  onReserved: () => void;
  /** How the call shares slots: interactive takes lent ones, bulk beyond its share lends. */
  slots(): AcquireOptions['slots'];
} {
  const ticket = {};
  let beyondShare = false;
  return {
    slots: () => (lane === 'interactive' ? 'take' : beyondShare ? 'lend' : undefined),
    // An interactive call stops holding bulk back once the quota answered with its slot.
    onReserved: () => {
      if (lane === 'interactive') gate.reserved(lane, ticket);
    },
    enter(live, fail, hand) {
      gate.enqueue(lane, ticket, {
        live,
        fail,
        hand: (priority) => {
          // A bulk call handed on for bulk's reserved share keeps its slot.
          beyondShare = lane === 'bulk' && priority !== LANE_PRIORITY.bulkShort;
          hand(priority);
        },
      });
    },
    settle: (tookSlot) => {
      gate.settled(lane, ticket, tookSlot);
    },
  };
}

/**
 * fn on its slot; when fn reports (through Slot.confirm) that its request would leave too late,
 * nothing was sent: the slot goes back and fn runs again on a new one.
 */
async function run<T>(
  quota: QuotaAcquirer,
  first: HeldSlot,
  { lateRetries, slots }: Pick<AcquireOptions, 'slots'> & { lateRetries: LateRetries },
  fn: (slot: Slot) => Promise<T>,
  signal: AbortSignal | undefined,
): Promise<T> {
  let held = first;
  for (let renewals = 0; ; renewals++) {
    const current = held;
    let missed: SlotMissedError | undefined;
    let confirmed = false;
    const slot: Slot = {
      confirm: () => {
        if (confirmed) return;
        if (!quota.canStart(current, lateRetries)) throw (missed = new SlotMissedError());
        confirmed = true;
      },
      renewals,
    };
    try {
      return await Promise.resolve().then(() => fn(slot));
    } catch (error) {
      if (missed === undefined || error !== missed) throw error;
    }
    await quota.withdraw(held.token);
    held = await quota.acquire(signal, { lateRetries, slots });
  }
}
