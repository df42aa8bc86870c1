/**
 * What a benchmark run shows besides its JSON: a few printed lines per scenario, and the chart
 * of the reference run (results/s of (a), (d) and the backlog; (b)'s rate over its limit).
 * Idle and (c) are not charted: one figure each, on scales of their own.
 */
import { barChart, type Bar } from './chart.js';
import type { LatencyFigures } from './latency.js';
import { round, type Measured, type Scenario } from './scenario.js';
import type { BacklogReport } from './scenarios/backlog.js';
import type { PartitionCountReport } from './scenarios/d-partition-count.js';
import type { IdleReport, IdleSpan } from './scenarios/idle.js';
import type { PacedLeg } from './vendor-leg.js';

export interface ScenarioReport {
  title: string;
  requests: number;
  service: Measured;
  baseline: Measured;
  ratios: Record<string, number>;
  /** The service without Redis and the registry (in-memory stores, plain JSON), in the same run. */
  oneInstance?: Measured;
  /** The service over its one-instance mode: what Redis and the registry cost per request. */
  oneInstanceRatios?: Record<string, number>;
  /** (b): the least exactly-once pipeline on the same clients (bench/floor-consumer.ts). */
  floor?: Measured;
  floorRatios?: Record<string, number>;
  /** (a): the vendor leg alone, as fast as it goes. */
  vendorAlone?: { callsPerSecond: number };
  /** (b): the vendor leg alone at the scenario's pace. */
  vendorPaced?: PacedLeg;
}

interface LatencyReport {
  title: string;
  service: LatencyFigures;
  baseline: LatencyFigures;
}

type Report = Record<string, unknown>;

export function summary(report: Report): string {
  const lines = ['summary:'];
  for (const id of ['a', 'b']) {
    const entry = report[id] as ScenarioReport | undefined;
    if (!entry) continue;
    lines.push(`(${id}) ${entry.title}, ${entry.requests} requests`);
    const systems = [
      entry.service,
      ...(entry.oneInstance ? [entry.oneInstance] : []),
      entry.baseline,
      ...(entry.floor ? [entry.floor] : []),
    ];
    for (const m of systems) lines.push(`  ${m.system}: ${throughputLine(m)}`);
    if (entry.oneInstanceRatios)
      lines.push(`  service/one-instance: ${JSON.stringify(entry.oneInstanceRatios)}`);
    lines.push(`  service/baseline: ${JSON.stringify(entry.ratios)}`);
    if (entry.floorRatios) lines.push(`  service/floor: ${JSON.stringify(entry.floorRatios)}`);
    lines.push(...vendorLegLines(entry));
  }
  const c = report.c as LatencyReport | undefined;
  if (c) {
    lines.push(`(c) ${c.title}`);
    for (const m of [c.service, c.baseline])
      lines.push(
        `  ${m.system}: added p50 ${m.addedMs.p50} ms, p99 ${m.addedMs.p99} ms, ${m.cpuSecondsPer1000} CPU-ms/request, ${m.peakRssMiB} MiB, ${m.duplicateOutcomes} duplicates, ${m.requestsWithoutOutcome} without outcome`,
      );
  }
  lines.push(...partitionCountLines(report.d as PartitionCountReport | undefined));
  lines.push(...idleLines(report.idle as IdleReport | undefined));
  lines.push(...backlogLines(report.backlog as BacklogReport | undefined));
  return lines.join('\n');
}

function throughputLine(m: Measured): string {
  const rate = m.achievedPerLimit === undefined ? '' : `${m.achievedPerLimit} of the limit, `;
  const withStack =
    m.withStackCpuSecondsPer1000 === undefined ? '' : ` (${m.withStackCpuSecondsPer1000} with the stack)`;
  const run = m.run
    ? `; with the sandbox and the stack ${m.run.cpuSecondsPer1000} CPU-ms/request over ${m.run.cores} busy cores`
    : '';
  return `${rate}${m.outcomesPerSecond} results/s, ${m.cpuSecondsPer1000} CPU-ms/request${withStack}, ${m.peakRssMiB} MiB peak RSS, ${m.requestsWithOutcome} requests with an outcome, ${m.duplicateOutcomes} duplicates${run}`;
}

/** What the vendor leg alone did in the same run, and the service's events per request at a pace. */
export function vendorLegLines(entry: ScenarioReport): string[] {
  const lines: string[] = [];
  if (entry.vendorAlone) lines.push(`  vendor leg alone: ${entry.vendorAlone.callsPerSecond} calls/s`);
  const paced = entry.vendorPaced;
  if (paced) {
    const missed =
      paced.rateLimited + paced.failed > 0
        ? ` (${paced.rateLimited} refused with 429, ${paced.failed} failed)`
        : '';
    lines.push(
      `  vendor leg alone at ${paced.ratePerSecond}/s: ${paced.cpuMsPerCall} CPU-ms/call${missed}; the service used ${round(entry.service.cpuSecondsPer1000 / paced.cpuMsPerCall, 2)}× that per request`,
    );
  }
  const { probe, outcomesPerSecond: perSecond } = entry.service;
  const writes = probe?.writeSyscallsPerSecond;
  const reads = probe?.readSyscallsPerSecond;
  const transactions = probe?.transactionsPerSecond;
  if (writes !== undefined && reads !== undefined && transactions !== undefined && perSecond > 0)
    lines.push(
      `  service per request: ${round(writes / perSecond, 2)} write and ${round(reads / perSecond, 2)} read system calls, ${round(perSecond / transactions, 1)} requests per transaction (${transactions} transactions/s)`,
    );
  return lines;
}

function roundsOf(d: PartitionCountReport): number {
  return Object.values(d.runs)[0]?.rounds.length ?? 0;
}

function partitionCountLines(d: PartitionCountReport | undefined): string[] {
  if (!d) return [];
  return [
    `(d) ${d.title}, ${d.requests} requests each, ${roundsOf(d)} round(s) in turns (means; RSS and connections the most)`,
    ...Object.entries(d.runs).map(
      ([n, run]) =>
        `  ${n} partitions: ${run.outcomesPerSecond} results/s, ${run.cpuMsPerRequest} CPU-ms/request (${run.rounds.map((m) => m.cpuSecondsPer1000).join(' / ')}), ${run.peakRssMiB} MiB, ${run.brokerConnectionsMax} broker connections, ${run.transactionsPerSecond} transactions/s, exactly once: ${met(run.exactlyOnce)}`,
    ),
    ...Object.entries(d.ratiosAgainst6).map(([n, r]) => `  ${n} against 6: ${JSON.stringify(r)}`),
    `  goal (256 within 1.2× of 6 in CPU/request and RSS): ${met(d.goalMet)}`,
  ];
}

function idleLines(idle: IdleReport | undefined): string[] {
  if (!idle) return [];
  const span = (name: string, s: IdleSpan): string =>
    `  ${name} (${s.partitionsOpened} opened): ${s.cores} core, ${s.rssMiB} MiB RSS, ${s.brokerConnectionsMax} broker connections, ${s.transactionsWhileIdle} transactions`;
  return [
    `(idle) ${idle.title}: ${idle.partitionsAssigned} assigned, ${idle.idleSeconds} s each after ${idle.settleSeconds} s`,
    span('fresh', idle.fresh),
    span('after traffic', idle.afterTraffic),
    `  goal (≤ 0.01 core): ${met(idle.goalMet)}`,
  ];
}

function backlogLines(backlog: BacklogReport | undefined): string[] {
  if (!backlog) return [];
  return [
    `(backlog) ${backlog.title}${backlog.system === 'one-instance' ? ', one-instance mode' : ''}`,
    ...Object.values(backlog.runs).map(
      (run) =>
        `  ${run.requests} requests (published in ${run.publishSeconds} s, ${run.requestsWithOutcome} answered): ${run.outcomesPerSecond} results/s, ${run.cpuMsPerRequest} CPU-ms/request, ${run.peakRssMiB} MiB peak RSS, exactly once: ${met(run.exactlyOnce)}, ${run.wallSeconds} s in all`,
    ),
    `  large against small: ${JSON.stringify(backlog.largeAgainstSmall)} (goal: RSS ≤ 1.1×: ${met(backlog.goalMet)})`,
  ];
}

function met(yes: boolean): string {
  return yes ? 'yes' : 'no';
}

/** The reference run's chart; scenarios missing from the report are left out. */
export function chart(report: Report, scenarios: Scenario[]): string {
  const groups = scenarios
    .filter((scenario) => report[scenario.id] !== undefined)
    .map((scenario) => {
      const entry = report[scenario.id] as ScenarioReport;
      const bar = (m: Measured): Bar =>
        scenario.limitPerSecond
          ? {
              label: `${m.system}: rate / limit`,
              value: m.achievedPerLimit ?? 0,
              caption: `${m.achievedPerLimit ?? 0} (at most ${m.vendor.maxInAnySlidingSecond} calls in any 1 s)`,
            }
          : resultsBar(m.system, m);
      const systems = [entry.service, ...(entry.oneInstance ? [entry.oneInstance] : []), entry.baseline];
      return { name: `(${scenario.id}) ${scenario.title}`, bars: systems.map(bar) };
    });
  const d = report.d as PartitionCountReport | undefined;
  if (d)
    groups.push({
      name: `(d) partition count, ${d.requests} requests`,
      bars: Object.entries(d.runs).map(([n, run]) => ({
        label: `service, ${n} partitions: results/s`,
        value: run.outcomesPerSecond,
        caption: `${run.outcomesPerSecond}/s · ${run.cpuMsPerRequest} CPU s/1k · ${run.peakRssMiB} MiB`,
      })),
    });
  const backlog = report.backlog as BacklogReport | undefined;
  if (backlog)
    groups.push({
      name: `(backlog) ${backlog.title}`,
      bars: Object.values(backlog.runs).map((run) => resultsBar(`service, ${run.requests}`, run.measured)),
    });
  return barChart(`verification-gateway vs a plain consumer (commit ${String(report.commit)})`, groups);
}

function resultsBar(label: string, m: Measured): Bar {
  return {
    label: `${label}: results/s`,
    value: m.outcomesPerSecond,
    caption: `${m.outcomesPerSecond}/s · ${m.cpuSecondsPer1000} CPU s/1k · ${m.peakRssMiB} MiB`,
  };
}
