import { describe, expect, it } from 'vitest';
import { summary, vendorLegLines, type ScenarioReport } from '../../../bench/report.js';
import type { Measured } from '../../../bench/scenario.js';

function measured(system: Measured['system'], extra: Partial<Measured> = {}): Measured {
  return {
    system,
    coresUsed: {},
    outcomes: 20_000,
    requestsWithOutcome: 20_000,
    duplicateOutcomes: 0,
    seconds: 69,
    outcomesPerSecond: 290,
    cpuSecondsPer1000: 1.38,
    peakRssMiB: 184,
    vendor: { billed: 20_000, maxInOneSecond: 295, maxInAnySlidingSecond: 299, rateLimited: 0 },
    publishSeconds: 0.1,
    ...extra,
  };
}

function entry(extra: Partial<ScenarioReport>): ScenarioReport {
  return {
    title: 'b',
    requests: 20_000,
    service: measured('service'),
    baseline: measured('baseline'),
    ratios: {},
    ...extra,
  };
}

describe('vendorLegLines', () => {
  it('sets the service against the paced vendor leg, and its probe per second into figures per request', () => {
    const lines = vendorLegLines(
      entry({
        vendorPaced: { ratePerSecond: 288, calls: 5760, rateLimited: 0, failed: 0, cpuMsPerCall: 0.46 },
        service: measured('service', {
          probe: { writeSyscallsPerSecond: 1015, readSyscallsPerSecond: 1044, transactionsPerSecond: 58 },
        }),
      }),
    );
    expect(lines).toEqual([
      '  vendor leg alone at 288/s: 0.46 CPU-ms/call; the service used 3× that per request',
      '  service per request: 3.5 write and 3.6 read system calls, 5 requests per transaction (58 transactions/s)',
    ]);
  });

  it('says when calls of the paced leg did not go through, since its figure is then suspect', () => {
    const [line] = vendorLegLines(
      entry({
        vendorPaced: { ratePerSecond: 288, calls: 5750, rateLimited: 4, failed: 6, cpuMsPerCall: 0.5 },
      }),
    );
    expect(line).toBe(
      '  vendor leg alone at 288/s: 0.5 CPU-ms/call (4 refused with 429, 6 failed); the service used 2.76× that per request',
    );
  });

  it('prints what the run measured and nothing else', () => {
    expect(vendorLegLines(entry({ vendorAlone: { callsPerSecond: 21_057.4 } }))).toEqual([
      '  vendor leg alone: 21057.4 calls/s',
    ]);
    expect(vendorLegLines(entry({}))).toEqual([]);
  });
});

describe('summary', () => {
  it('lists the floor after the baseline, and the service against it, when the run measured one', () => {
    const withFloor = entry({
      floor: measured('floor', { cpuSecondsPer1000: 0.3, peakRssMiB: 160 }),
      floorRatios: { throughput: 1, cpuPer1000: 2.1 },
    });
    const lines = summary({ b: withFloor }).split('\n');
    const floorLine = lines.findIndex((line) => line.startsWith('  floor: '));
    expect(lines[floorLine - 1]).toMatch(/^ {2}baseline: /);
    expect(lines[floorLine]).toContain('0.3 CPU-ms/request');
    expect(lines).toContain('  service/floor: {"throughput":1,"cpuPer1000":2.1}');
    expect(summary({ b: entry({}) })).not.toContain('floor');
  });

  it('lists the one-instance mode after the service, and the service against it, when the run measured it', () => {
    const withOneInstance = entry({
      oneInstance: measured('one-instance', { cpuSecondsPer1000: 0.35, outcomesPerSecond: 1410 }),
      oneInstanceRatios: { throughput: 0.79, cpuPer1000: 1.3 },
    });
    const lines = summary({ a: withOneInstance }).split('\n');
    const line = lines.findIndex((l) => l.startsWith('  one-instance: '));
    expect(lines[line - 1]).toMatch(/^ {2}service: /);
    expect(lines[line]).toContain('1410 results/s, 0.35 CPU-ms/request');
    expect(lines).toContain('  service/one-instance: {"throughput":0.79,"cpuPer1000":1.3}');
    expect(summary({ a: entry({}) })).not.toContain('one-instance');
  });
});
