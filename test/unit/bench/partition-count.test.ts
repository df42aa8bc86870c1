import { describe, expect, it } from 'vitest';
import type { Measured } from '../../../bench/scenario.js';
import { combineRounds, roundsSetting } from '../../../bench/scenarios/d-partition-count.js';

function round(extra: Partial<Measured>, probe: Record<string, number> = {}): Measured {
  return {
    system: 'service',
    coresUsed: {},
    outcomes: 50_000,
    requestsWithOutcome: 50_000,
    duplicateOutcomes: 0,
    seconds: 17,
    outcomesPerSecond: 2_900,
    cpuSecondsPer1000: 0.32,
    peakRssMiB: 200,
    vendor: { billed: 50_000, maxInOneSecond: 3_100, maxInAnySlidingSecond: 3_200, rateLimited: 0 },
    probe: { brokerConnectionsMax: 5, transactionsPerSecond: 12, ...probe },
    publishSeconds: 1.3,
    ...extra,
  };
}

describe('(d) rounds', () => {
  it('takes two rounds unless BENCH_D_ROUNDS says otherwise, and refuses what is not a count', () => {
    expect(roundsSetting(undefined)).toBe(2);
    expect(roundsSetting(' ')).toBe(2);
    expect(roundsSetting('3')).toBe(3);
    expect(() => roundsSetting('0')).toThrow(/BENCH_D_ROUNDS.*"0"/);
    expect(() => roundsSetting('two')).toThrow(/BENCH_D_ROUNDS/);
    expect(() => roundsSetting('1.5')).toThrow(/BENCH_D_ROUNDS/);
  });

  it("gives a count the rounds' means, the most RSS and connections, and their wall time", () => {
    const run = combineRounds(
      [
        round(
          { outcomesPerSecond: 2_800, cpuSecondsPer1000: 0.311, peakRssMiB: 190 },
          { transactionsPerSecond: 9 },
        ),
        round(
          { outcomesPerSecond: 3_000.5, cpuSecondsPer1000: 0.334, peakRssMiB: 214.6 },
          { brokerConnectionsMax: 6, transactionsPerSecond: 10 },
        ),
      ],
      61.4,
      50_000,
    );
    expect(run).toMatchObject({
      outcomesPerSecond: 2_900.3,
      cpuMsPerRequest: 0.323,
      peakRssMiB: 214.6,
      brokerConnectionsMax: 6,
      transactionsPerSecond: 9.5,
      exactlyOnce: true,
      wallSeconds: 61,
    });
    expect(run.rounds).toHaveLength(2);
  });

  it('is exactly once only when every round was', () => {
    const duplicated = round({ outcomes: 50_001, duplicateOutcomes: 1 });
    expect(combineRounds([round({}), duplicated], 60, 50_000).exactlyOnce).toBe(false);
    const short = round({ requestsWithOutcome: 49_999 });
    expect(combineRounds([short, round({})], 60, 50_000).exactlyOnce).toBe(false);
    expect(combineRounds([], 0, 50_000).exactlyOnce).toBe(false);
  });
});
