/**
 * (d) partition count: (a)'s load and settings, BENCH_D_REQUESTS (50k) requests, over 6, 64 and
 * 256 partitions of lawsuits-summary's request topic (every other topic keeps (a)'s 6), one
 * replica. Per count: results/s, CPU per request, peak RSS, the most broker connections the
 * service held and the transactions it committed per second; then 64 and 256 against 6.
 *
 * Every count is measured BENCH_D_ROUNDS (2) times, the counts in turn each round (6, 64, 256,
 * 6, 64, 256), so that a change in the machine's speed during the run falls on every count
 * alike. One round each put 256 against 6 anywhere from 0.97 to 1.31 in CPU per request, over
 * runs of the same code.
 */
import type { Admin, Kafka } from '../../src/kafka/client.js';
import { measure } from '../measure.js';
import { connectionsAndTransactions } from '../probes.js';
import { ADMIN_PORT, exactlyOnce, relativeTo, round, type Measured, type Scenario } from '../scenario.js';
import { instantVendor } from './a-instant-vendor.js';

const ALL_COUNTS = [6, 64, 256];
const REFERENCE = 6;
/** BENCH_D_PARTITIONS=6,256 measures some of the counts (an A/B needs no 64); 6 is always first. */
export const PARTITION_COUNTS = chosenCounts(process.env.BENCH_D_PARTITIONS);

function chosenCounts(setting: string | undefined): number[] {
  if (setting === undefined || setting.trim() === '') return ALL_COUNTS;
  const chosen = setting
    .split(/[\s,]+/)
    .filter((w) => w !== '')
    .map(Number);
  const unknown = chosen.filter((n) => !ALL_COUNTS.includes(n));
  if (unknown.length > 0)
    throw new Error(
      `BENCH_D_PARTITIONS: unknown count ${unknown.join(', ')} (known: ${ALL_COUNTS.join(', ')})`,
    );
  return ALL_COUNTS.filter((n) => n === REFERENCE || chosen.includes(n));
}
export const ROUNDS = roundsSetting(process.env.BENCH_D_ROUNDS);

export function roundsSetting(setting: string | undefined): number {
  const raw = setting?.trim();
  if (raw === undefined || raw === '') return 2;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1)
    throw new Error(`BENCH_D_ROUNDS: a whole number ≥ 1, got "${raw}"`);
  return value;
}

/** The goal (issue 12): at 256 partitions, CPU per request and peak RSS within 1.2× of 6. */
const GOAL_RATIO = 1.2;

export const partitionCount = {
  id: 'd',
  title: 'partition count: 6, 64 and 256 request partitions, instant vendor, one replica',
  requests: Number(process.env.BENCH_D_REQUESTS ?? 50_000),
};

function scenarioFor(requestPartitions: number): Scenario {
  return {
    ...instantVendor,
    id: `d${requestPartitions}`,
    title: `${partitionCount.title} (${requestPartitions})`,
    requestPartitions,
    requests: partitionCount.requests,
    // Paid outcomes expire from the shared Redis within the hour (the default keeps them 7 days).
    service: { ...instantVendor.service, DEDUPE_WINDOW_SECONDS: '3600' },
    extra: undefined,
  };
}

/**
 * One count over its rounds: results/s, CPU per request and transactions/s are the rounds'
 * means; peak RSS and broker connections the most of any round; exactly once in every round.
 */
export interface PartitionCountRun {
  outcomesPerSecond: number;
  cpuMsPerRequest: number;
  peakRssMiB: number;
  brokerConnectionsMax: number;
  transactionsPerSecond: number;
  exactlyOnce: boolean;
  wallSeconds: number;
  rounds: Measured[];
}

export interface PartitionCountReport {
  title: string;
  requests: number;
  runs: Record<string, PartitionCountRun>;
  ratiosAgainst6: Record<string, Record<string, number>>;
  goalMet: boolean;
}

export async function measurePartitionCount(kafka: Kafka, admin: Admin): Promise<PartitionCountReport> {
  const rounds = new Map<number, Measured[]>(PARTITION_COUNTS.map((n) => [n, []]));
  const walls = new Map<number, number>(PARTITION_COUNTS.map((n) => [n, 0]));
  for (let round = 1; round <= ROUNDS; round += 1) {
    for (const partitions of PARTITION_COUNTS) {
      const started = Date.now();
      const measured = await measure(kafka, admin, scenarioFor(partitions), 'service', {
        extraEnv: { ADMIN_PORT: String(ADMIN_PORT) },
        probe: connectionsAndTransactions,
      });
      const wallSeconds = (Date.now() - started) / 1000;
      rounds.get(partitions)!.push(measured);
      walls.set(partitions, walls.get(partitions)! + wallSeconds);
      console.log(
        `(d) round ${round} of ${ROUNDS}, ${partitions} partitions`,
        JSON.stringify(combineRounds([measured], wallSeconds, partitionCount.requests)),
      );
    }
  }
  const runs: Record<string, PartitionCountRun> = Object.fromEntries(
    PARTITION_COUNTS.map((n) => [n, combineRounds(rounds.get(n)!, walls.get(n)!, partitionCount.requests)]),
  );
  const headline = (run: PartitionCountRun): Record<string, number> => {
    const { rounds: _rounds, exactlyOnce: _once, wallSeconds: _wall, ...figures } = run;
    return figures;
  };
  const reference = headline(runs[REFERENCE]!);
  const ratios = Object.fromEntries(
    PARTITION_COUNTS.filter((n) => n !== REFERENCE).map((n) => [
      n,
      relativeTo(reference, headline(runs[n]!)),
    ]),
  );
  const at256 = ratios[256] ?? {};
  return {
    title: partitionCount.title,
    requests: partitionCount.requests,
    runs,
    ratiosAgainst6: ratios,
    goalMet:
      (at256.cpuMsPerRequest ?? Infinity) <= GOAL_RATIO && (at256.peakRssMiB ?? Infinity) <= GOAL_RATIO,
  };
}

/** One count's rounds as one run (see PartitionCountRun). */
export function combineRounds(
  rounds: readonly Measured[],
  wallSeconds: number,
  requests: number,
): PartitionCountRun {
  const mean = (figure: (m: Measured) => number, digits: number): number =>
    round(rounds.reduce((sum, m) => sum + figure(m), 0) / rounds.length, digits);
  const most = (figure: (m: Measured) => number): number => Math.max(...rounds.map(figure));
  return {
    outcomesPerSecond: mean((m) => m.outcomesPerSecond, 1),
    cpuMsPerRequest: mean((m) => m.cpuSecondsPer1000, 3),
    peakRssMiB: most((m) => m.peakRssMiB),
    brokerConnectionsMax: most((m) => m.probe?.brokerConnectionsMax ?? Number.NaN),
    transactionsPerSecond: mean((m) => m.probe?.transactionsPerSecond ?? Number.NaN, 1),
    exactlyOnce: rounds.length > 0 && rounds.every((m) => exactlyOnce(m, requests)),
    wallSeconds: Math.round(wallSeconds),
    rounds: [...rounds],
  };
}
