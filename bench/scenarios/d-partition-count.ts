/**
 * (d) partition count: (a)'s load and settings, BENCH_D_REQUESTS (50k) requests, over 6, 64 and
 * 256 partitions of lawsuits-summary's request topic (every other topic keeps (a)'s 6), one
 * replica. Per count: results/s, CPU per request, peak RSS, the most broker connections the
 * service held and the transactions it committed per second; then 64 and 256 against 6.
 */
import type { Admin, Kafka } from 'kafkajs';
import { measure } from '../measure.js';
import { connectionsAndTransactions } from '../probes.js';
import { ADMIN_PORT, exactlyOnce, relativeTo, type Measured, type Scenario } from '../scenario.js';
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

export interface PartitionCountRun {
  outcomesPerSecond: number;
  cpuMsPerRequest: number;
  peakRssMiB: number;
  brokerConnectionsMax: number;
  transactionsPerSecond: number;
  exactlyOnce: boolean;
  wallSeconds: number;
  measured: Measured;
}

export interface PartitionCountReport {
  title: string;
  requests: number;
  runs: Record<string, PartitionCountRun>;
  ratiosAgainst6: Record<string, Record<string, number>>;
  goalMet: boolean;
}

export async function measurePartitionCount(kafka: Kafka, admin: Admin): Promise<PartitionCountReport> {
  const runs: Record<string, PartitionCountRun> = {};
  for (const partitions of PARTITION_COUNTS) {
    const started = Date.now();
    const measured = await measure(kafka, admin, scenarioFor(partitions), 'service', {
      extraEnv: { ADMIN_PORT: String(ADMIN_PORT) },
      probe: connectionsAndTransactions,
    });
    runs[partitions] = {
      outcomesPerSecond: measured.outcomesPerSecond,
      cpuMsPerRequest: measured.cpuSecondsPer1000,
      peakRssMiB: measured.peakRssMiB,
      brokerConnectionsMax: measured.probe?.brokerConnectionsMax ?? Number.NaN,
      transactionsPerSecond: measured.probe?.transactionsPerSecond ?? Number.NaN,
      exactlyOnce: exactlyOnce(measured, partitionCount.requests),
      wallSeconds: Math.round((Date.now() - started) / 1000),
      measured,
    };
    console.log(`(d) ${partitions} partitions`, JSON.stringify(runs[partitions]));
  }
  const headline = (run: PartitionCountRun): Record<string, number> => {
    const { measured: _measured, exactlyOnce: _once, wallSeconds: _wall, ...figures } = run;
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
