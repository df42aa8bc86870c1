import type { FastifyInstance } from 'fastify';
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

export interface OperationStatus extends Omit<OperationFigures, 'breaker' | 'calls' | 'hanging'> {
  operation: string;
  hanging: string[];
  callsPerSecond: number;
  breakers: string[];
  /** Calls per second over the last 15 minutes, oldest first. */
  chart: number[];
  lag: number | null;
}

export function sumReplicas(
  replicas: readonly ReplicaFigures[],
): Map<string, OperationFigures & { breakers: string[] }> {
  const total = new Map<string, OperationFigures & { breakers: string[] }>();
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
        });
        continue;
      }
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

export function registerStatus(scope: FastifyInstance, deps: ConsoleDeps): void {
  const history: { at: number; calls: Map<string, number> }[] = [];
  const record = (summed: ReturnType<typeof sumReplicas>): void => {
    const now = deps.now().getTime();
    history.push({ at: now, calls: new Map([...summed].map(([op, f]) => [op, f.calls])) });
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

/** Calls per second between consecutive samples; a restarted replica's counter drop counts as 0. */
function rates(history: readonly { at: number; calls: Map<string, number> }[], operation: string): number[] {
  const out: number[] = [];
  for (let i = 1; i < history.length; i += 1) {
    const a = history[i - 1];
    const b = history[i];
    if (!a || !b || b.at <= a.at) continue;
    const delta = (b.calls.get(operation) ?? 0) - (a.calls.get(operation) ?? 0);
    out.push(Math.max(0, delta) / ((b.at - a.at) / 1000));
  }
  return out;
}
