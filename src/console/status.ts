import type { FastifyInstance } from 'fastify';
import { LANES } from '../contract/operations.js';
import type { ConsoleDeps } from './index.js';
import { page } from './index.js';

/**
 * Status: per operation, the figures of every live replica added up. Each replica publishes
 * its own (heartbeat.ts); the console keeps 15 minutes of the summed call counters to draw the
 * rate chart.
 */
export interface OperationFigures {
  /** Vendor calls since the replica started (a counter: rates come from differences). */
  calls: number;
  /** Null when the runtime does not report it. */
  inFlight: number | null;
  breaker: string;
  ratePerSecond: number;
  spendCapPerHour: number | null;
  callsThisHour: number;
  /** Dead letters of the last hour by error kind. */
  deadLetters: Record<string, number>;
  /** `<partition> (<reasons>)` of this replica's paused request partitions. */
  paused: string[];
  /**
   * `<partition> (<seconds> s)` of those held by an open transaction past the transaction
   * timeout (a hanging transaction). Absent from the figures of replicas older than it.
   */
  hanging?: string[];
  /**
   * Per request lane (interactive, bulk): its calls and its queue in the limiter. Absent from
   * the figures of replicas older than the lanes.
   */
  lanes?: Record<string, LaneFigures>;
}

/** One lane of one operation on one replica. */
export interface LaneFigures {
  /** Vendor calls of this lane since the replica started (a counter: rates come from differences). */
  calls: number;
  /** Calls of this lane waiting in the limiter for a quota slot. */
  queued: number;
  /** Milliseconds the oldest of them has waited (0 when none waits). */
  oldestWaitMs: number;
}

export interface ReplicaFigures {
  replica: string;
  at: number;
  operations: Record<string, OperationFigures>;
}

export interface StatusSource {
  /** The latest figures of every live replica. */
  replicas(): Promise<ReplicaFigures[]>;
  /** Messages not yet committed by the service's group, per operation (one cluster-wide read). */
  lag(): Promise<Record<string, number>>;
}

const HISTORY_MS = 15 * 60_000;
const SAMPLE_MS = 5_000;

/** A lane's row on the page: summed over the replicas, the oldest wait the longest of theirs. */
export interface LaneStatus {
  lane: string;
  callsPerSecond: number;
  queued: number;
  oldestWaitSeconds: number;
}

export type SummedFigures = OperationFigures & { breakers: string[]; lanes: Record<string, LaneFigures> };

export interface OperationStatus extends Omit<OperationFigures, 'breaker' | 'calls' | 'hanging' | 'lanes'> {
  operation: string;
  /** Interactive first, then bulk (then any lane a newer replica reports). */
  lanes: LaneStatus[];
  hanging: string[];
  callsPerSecond: number;
  breakers: string[];
  /** Calls per second over the last 15 minutes, oldest first. */
  chart: number[];
  lag: number | null;
}

/**
 * Every replica's figures per operation: counters, calls in flight and lane queues added up,
 * the oldest wait of a lane the longest any replica reports, lists joined.
 */
export function sumReplicas(replicas: readonly ReplicaFigures[]): Map<string, SummedFigures> {
  const total = new Map<string, SummedFigures>();
  for (const replica of replicas) {
    for (const [operation, f] of Object.entries(replica.operations)) {
      const sum = total.get(operation);
      if (!sum) {
        total.set(operation, {
          ...f,
          deadLetters: { ...f.deadLetters },
          paused: [...f.paused],
          hanging: [...(f.hanging ?? [])],
          breakers: [f.breaker],
          lanes: Object.fromEntries(Object.entries(f.lanes ?? {}).map(([lane, l]) => [lane, { ...l }])),
        });
        continue;
      }
      addLanes(sum.lanes, f.lanes ?? {});
      sum.calls += f.calls;
      sum.inFlight = sum.inFlight === null || f.inFlight === null ? null : sum.inFlight + f.inFlight;
      sum.callsThisHour += f.callsThisHour;
      sum.breakers.push(f.breaker);
      sum.paused.push(...f.paused);
      sum.hanging = [...(sum.hanging ?? []), ...(f.hanging ?? [])];
      for (const [kind, n] of Object.entries(f.deadLetters))
        sum.deadLetters[kind] = (sum.deadLetters[kind] ?? 0) + n;
    }
  }
  return total;
}

function addLanes(sum: Record<string, LaneFigures>, lanes: Readonly<Record<string, LaneFigures>>): void {
  for (const [lane, l] of Object.entries(lanes)) {
    const into = sum[lane];
    if (!into) {
      sum[lane] = { ...l };
      continue;
    }
    into.calls += l.calls;
    into.queued += l.queued;
    into.oldestWaitMs = Math.max(into.oldestWaitMs, l.oldestWaitMs);
  }
}

/** The key of a lane's call counter in the sampled history. */
export const laneKey = (operation: string, lane: string): string => `${operation}\u0000${lane}`;

/**
 * One operation's lane rows from its summed figures; `rate` gives a history key's latest calls
 * per second. The known lanes come first, in contract order, each shown even before a call.
 */
export function laneStatus(
  operation: string,
  summed: Pick<SummedFigures, 'lanes'>,
  rate: (key: string) => number,
): LaneStatus[] {
  const names = [
    ...LANES,
    ...Object.keys(summed.lanes).filter((l) => !(LANES as readonly string[]).includes(l)),
  ];
  return names.map((lane) => {
    const l = summed.lanes[lane];
    return {
      lane,
      callsPerSecond: rate(laneKey(operation, lane)),
      queued: l?.queued ?? 0,
      oldestWaitSeconds: (l?.oldestWaitMs ?? 0) / 1000,
    };
  });
}

/** The call counters a history sample keeps: each operation's, and each of its lanes'. */
function counters(summed: ReadonlyMap<string, SummedFigures>): Map<string, number> {
  const calls = new Map<string, number>();
  for (const [operation, f] of summed) {
    calls.set(operation, f.calls);
    for (const [lane, l] of Object.entries(f.lanes)) calls.set(laneKey(operation, lane), l.calls);
  }
  return calls;
}

export function registerStatus(scope: FastifyInstance, deps: ConsoleDeps): void {
  const history: { at: number; calls: Map<string, number> }[] = [];
  const record = (summed: ReturnType<typeof sumReplicas>): void => {
    const now = deps.now().getTime();
    history.push({ at: now, calls: counters(summed) });
    while (history.length > 1 && (history[0]?.at ?? now) < now - HISTORY_MS) history.shift();
  };
  // Sampled with or without viewers, so the chart has its 15 minutes when a page opens.
  const sampler = setInterval(() => {
    deps.status.replicas().then(
      (replicas) => {
        record(sumReplicas(replicas));
      },
      (error: unknown) => {
        deps.logger.warn({ err: error }, 'status sample failed');
      },
    );
  }, SAMPLE_MS);
  sampler.unref();
  scope.addHook('onClose', (_instance, done) => {
    clearInterval(sampler);
    done();
  });
  const snapshot = async (): Promise<{ replicas: number; operations: OperationStatus[] }> => {
    const [replicas, lag] = await Promise.all([
      deps.status.replicas(),
      deps.status.lag().catch((): Record<string, number> => ({})),
    ]);
    const summed = sumReplicas(replicas);
    record(summed);
    const operations = [...summed].map(([operation, f]) => {
      const chart = rates(history, operation);
      return {
        operation,
        callsPerSecond: chart.at(-1) ?? 0,
        lanes: laneStatus(operation, f, (key) => rates(history, key).at(-1) ?? 0),
        chart,
        inFlight: f.inFlight,
        breakers: f.breakers,
        ratePerSecond: f.ratePerSecond,
        spendCapPerHour: f.spendCapPerHour,
        callsThisHour: f.callsThisHour,
        deadLetters: f.deadLetters,
        paused: f.paused,
        hanging: f.hanging ?? [],
        lag: lag[operation] ?? null,
      };
    });
    return { replicas: replicas.length, operations };
  };
  scope.get('/status', async (request, reply) => page(request, reply, 'status', await snapshot()));
  scope.get('/status.json', async () => snapshot());
}

/**
 * Calls per second of a counter (an operation's, or one of its lanes') between consecutive
 * samples; a restarted replica's counter drop counts as 0.
 */
export function rates(history: readonly { at: number; calls: Map<string, number> }[], key: string): number[] {
  const out: number[] = [];
  for (let i = 1; i < history.length; i += 1) {
    const a = history[i - 1];
    const b = history[i];
    if (!a || !b || b.at <= a.at) continue;
    const delta = (b.calls.get(key) ?? 0) - (a.calls.get(key) ?? 0);
    out.push(Math.max(0, delta) / ((b.at - a.at) / 1000));
  }
  return out;
}
