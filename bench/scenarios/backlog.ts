/**
 * Backlog: (a)'s load and settings over a BENCH_BACKLOG_SMALL (100k) and a BENCH_BACKLOG_LARGE
 * (1M) request backlog, published in full before the service starts: peak RSS, results/s and
 * CPU per request for each, and large against small. The goal (issue 12): peak RSS over 1M
 * within 1.1× of 100k, so memory is bounded by the service's windows, not by the lag.
 */
import type { Admin, Kafka } from '../../src/kafka/client.js';
import { measure, type RunProbe } from '../measure.js';
import { rssMiB } from '../processes.js';
import {
  exactlyOnce,
  relativeTo,
  round,
  type Measured,
  type Scenario,
  type SystemName,
} from '../scenario.js';
import { instantVendor } from './a-instant-vendor.js';

const GOAL_RATIO = 1.1;
/**
 * Time allowed per request before the service is stopped and measured on what it did, unless
 * BENCH_BACKLOG_CAP_SECONDS says how long (a loaded machine may not drain 1M in an hour).
 */
const CAP_MS_PER_REQUEST = 3;
const CAP_SECONDS = process.env.BENCH_BACKLOG_CAP_SECONDS;
/**
 * BENCH_BACKLOG_SYSTEM=one-instance drains the backlogs with the one-instance mode instead (no
 * Redis, no registry): its paid outcomes stay in memory, so its RSS over 1M against 100k shows
 * whether MEMORY_DEDUPE_MAX_ENTRIES bounds it.
 */
export function backlogSystem(value: string | undefined): SystemName {
  if (value === undefined || value === '' || value === 'service') return 'service';
  if (value === 'one-instance') return value;
  throw new Error(`BENCH_BACKLOG_SYSTEM: service or one-instance, got "${value}"`);
}

export const backlog = {
  id: 'backlog',
  title: 'backlog published before start, instant vendor, 6 partitions',
  small: Number(process.env.BENCH_BACKLOG_SMALL ?? 100_000),
  large: Number(process.env.BENCH_BACKLOG_LARGE ?? 1_000_000),
};

function scenarioFor(size: 'small' | 'large'): Scenario {
  const requests = backlog[size];
  return {
    ...instantVendor,
    id: `backlog${size}`,
    title: `${backlog.title} (${requests})`,
    requests,
    serviceCapMs: CAP_SECONDS ? Number(CAP_SECONDS) * 1000 : Math.max(600_000, requests * CAP_MS_PER_REQUEST),
    // Paid outcomes expire from the shared Redis within the hour (the default keeps them 7 days).
    service: { ...instantVendor.service, DEDUPE_WINDOW_SECONDS: '3600' },
    extra: undefined,
  };
}

/** RSS as the backlog drains: at the first outcome, the most seen, and at the last. */
function rssAlongTheWay(pid: number): RunProbe {
  const rss = { atFirst: 0, max: 0 };
  return {
    first() {
      rss.atFirst = rssMiB(pid);
      return Promise.resolve();
    },
    tick() {
      rss.max = Math.max(rss.max, rssMiB(pid));
    },
    last() {
      return Promise.resolve({
        rssAtFirstOutcomeMiB: round(rss.atFirst),
        rssMaxSampledMiB: round(rss.max),
        rssAtLastOutcomeMiB: round(rssMiB(pid)),
      });
    },
  };
}

export interface BacklogRun {
  requests: number;
  /** Fewer than `requests` when the cap stopped the service first. */
  requestsWithOutcome: number;
  publishSeconds: number;
  outcomesPerSecond: number;
  cpuMsPerRequest: number;
  peakRssMiB: number;
  exactlyOnce: boolean;
  wallSeconds: number;
  measured: Measured;
}

export interface BacklogReport {
  title: string;
  system: SystemName;
  runs: Partial<Record<'small' | 'large', BacklogRun>>;
  largeAgainstSmall: Record<string, number>;
  goalMet: boolean;
}

export async function measureBacklog(kafka: Kafka, admin: Admin): Promise<BacklogReport> {
  const runs: Partial<Record<'small' | 'large', BacklogRun>> = {};
  const system = backlogSystem(process.env.BENCH_BACKLOG_SYSTEM);
  for (const size of ['small', 'large'] as const) {
    const started = Date.now();
    const scenario = scenarioFor(size);
    const measured = await measure(kafka, admin, scenario, system, { probe: rssAlongTheWay });
    runs[size] = {
      requests: scenario.requests,
      requestsWithOutcome: measured.requestsWithOutcome,
      publishSeconds: measured.publishSeconds,
      outcomesPerSecond: measured.outcomesPerSecond,
      cpuMsPerRequest: measured.cpuSecondsPer1000,
      peakRssMiB: measured.peakRssMiB,
      exactlyOnce: exactlyOnce(measured, scenario.requests),
      wallSeconds: Math.round((Date.now() - started) / 1000),
      measured,
    };
    console.log(`(backlog) ${scenario.requests} requests`, JSON.stringify(runs[size]));
  }
  const { small, large } = runs as Record<'small' | 'large', BacklogRun>;
  const headline = ({ outcomesPerSecond, cpuMsPerRequest, peakRssMiB }: BacklogRun) => ({
    outcomesPerSecond,
    cpuMsPerRequest,
    peakRssMiB,
  });
  const ratios = relativeTo(headline(small), headline(large));
  return {
    title: backlog.title,
    system,
    runs,
    largeAgainstSmall: ratios,
    goalMet: (ratios.peakRssMiB ?? Infinity) <= GOAL_RATIO,
  };
}
