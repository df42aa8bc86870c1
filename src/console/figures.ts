import type { CircuitBreaker } from '../requests/circuit-breaker.js';
import type { OperationLimits } from '../config.js';
import { LANES, OPERATIONS, type Lane, type Operation } from '../contract/operations.js';
import type { ServiceMetrics } from '../observability/metrics.js';
import type { LaneFigures as LaneQueue } from '../limits/lane-gate.js';
import type { ScheduleLimiter } from '../limits/types.js';
import type { PausedPartition } from '../consumers/runtime.js';
import type { LaneFigures, ReplicaFigures } from './status.js';

/**
 * This replica's figures for the status page, counted where the metrics are: every vendor call
 * and every dead letter passes through ServiceMetrics, so wrapping it sees them all.
 */
export interface LocalFigures {
  metrics: ServiceMetrics;
  /** The limiter with each call it starts counted (calls, calls this hour, in flight). */
  counted(operation: Operation, limiter: ScheduleLimiter): ScheduleLimiter;
  snapshot(): ReplicaFigures;
}

const HOUR_MS = 3600_000;

export function localFigures(deps: {
  replica: string;
  metrics: ServiceMetrics;
  limits: Readonly<Record<Operation, Readonly<OperationLimits>>>;
  breakerFor: (operation: Operation) => CircuitBreaker;
  /** The runtime's paused partitions (set once the runtime exists). */
  paused: () => PausedPartition[];
  requestTopic: (operation: Operation, lane: Lane) => string;
  /** Each lane's queue in the operation's limiter, read when a heartbeat is written. */
  laneQueues: (operation: Operation) => Readonly<Record<Lane, LaneQueue>>;
  now: () => number;
}): LocalFigures {
  const calls = new Map<Operation, number>();
  const laneCalls = new Map<Operation, Record<Lane, number>>();
  const inFlight = new Map<Operation, number>();
  const hourly = new Map<Operation, { hour: number; count: number }>();
  /** Dead letters by minute, for a sliding last hour. */
  const deadLetters: { at: number; operation: Operation; kind: string }[] = [];
  const metrics: ServiceMetrics = {
    ...deps.metrics,
    registry: deps.metrics.registry,
    outcome(operation, kind, status) {
      if (kind === 'error') deadLetters.push({ at: deps.now(), operation, kind: status });
      deps.metrics.outcome(operation, kind, status);
    },
  };
  const started = (operation: Operation, lane: Lane): void => {
    calls.set(operation, (calls.get(operation) ?? 0) + 1);
    const byLane = laneCalls.get(operation) ?? { interactive: 0, bulk: 0 };
    byLane[lane] += 1;
    laneCalls.set(operation, byLane);
    const hour = Math.floor(deps.now() / HOUR_MS);
    const h = hourly.get(operation);
    hourly.set(operation, h && h.hour === hour ? { hour, count: h.count + 1 } : { hour, count: 1 });
  };
  return {
    metrics,
    counted: (operation, limiter) => ({
      backoff: (ms) => {
        limiter.backoff(ms);
      },
      schedule: (fn, options) =>
        limiter.schedule(async (slot) => {
          // A run again on a new slot (the last one was missed) is the same call.
          if (slot.renewals === 0) started(operation, options?.lane ?? 'interactive');
          inFlight.set(operation, (inFlight.get(operation) ?? 0) + 1);
          try {
            return await fn(slot);
          } finally {
            inFlight.set(operation, (inFlight.get(operation) ?? 1) - 1);
          }
        }, options),
    }),
    snapshot() {
      const now = deps.now();
      while ((deadLetters[0]?.at ?? now) < now - HOUR_MS) deadLetters.shift();
      return {
        replica: deps.replica,
        at: now,
        operations: operationFigures(deps, { calls, laneCalls, inFlight, hourly, deadLetters }, now),
      };
    },
  };
}

type FiguresDeps = Parameters<typeof localFigures>[0];

interface Tallies {
  calls: ReadonlyMap<Operation, number>;
  laneCalls: ReadonlyMap<Operation, Readonly<Record<Lane, number>>>;
  inFlight: ReadonlyMap<Operation, number>;
  hourly: ReadonlyMap<Operation, { hour: number; count: number }>;
  deadLetters: readonly { at: number; operation: Operation; kind: string }[];
}

function operationFigures(deps: FiguresDeps, tallies: Tallies, now: number): ReplicaFigures['operations'] {
  const { calls, laneCalls, inFlight, hourly, deadLetters } = tallies;
  const hour = Math.floor(now / HOUR_MS);
  const paused = deps.paused();
  return Object.fromEntries(
    OPERATIONS.map((op) => {
      const byKind: Record<string, number> = {};
      for (const d of deadLetters) if (d.operation === op) byKind[d.kind] = (byKind[d.kind] ?? 0) + 1;
      const h = hourly.get(op);
      // Both lanes' partitions; a bulk lane's are named so (shared/contract.md, "Lanes").
      const own = LANES.flatMap((lane) =>
        paused
          .filter((p) => p.topic === deps.requestTopic(op, lane))
          .map((p) => ({ ...p, label: lane === 'bulk' ? `bulk ${p.partition}` : String(p.partition) })),
      );
      return [
        op,
        {
          calls: calls.get(op) ?? 0,
          inFlight: inFlight.get(op) ?? 0,
          breaker: deps.breakerFor(op).state,
          ratePerSecond: deps.limits[op].ratePerSecond,
          spendCapPerHour: deps.limits[op].spendCapPerHour ?? null,
          callsThisHour: h && h.hour === hour ? h.count : 0,
          deadLetters: byKind,
          paused: own.map((p) => `${p.label} (${p.reasons.join(', ')})`),
          hanging: own.flatMap((p) =>
            p.hangingForMs === undefined ? [] : [`${p.label} (${Math.round(p.hangingForMs / 1000)} s)`],
          ),
          lanes: laneFigures(laneCalls.get(op), deps.laneQueues(op)),
        },
      ];
    }),
  );
}

function laneFigures(
  calls: Readonly<Record<Lane, number>> | undefined,
  queues: Readonly<Record<Lane, LaneQueue>>,
): Record<Lane, LaneFigures> {
  return Object.fromEntries(
    LANES.map((lane) => [
      lane,
      {
        calls: calls?.[lane] ?? 0,
        queued: queues[lane].queued,
        oldestWaitMs: Math.round(queues[lane].oldestWaitMs),
      },
    ]),
  ) as Record<Lane, LaneFigures>;
}
