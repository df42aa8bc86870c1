import { describe, expect, it } from 'vitest';
import {
  chosenIds,
  cpuSecondsPer1000,
  exactlyOnce,
  ratios,
  relativeTo,
  runFigures,
  STACK_PROCESSES,
  warmUpSettings,
  type Measured,
} from '../../../bench/scenario.js';

const IDS = ['a', 'b', 'c', 'd', 'idle', 'backlog'];

describe('BENCH_ONLY', () => {
  it('runs every scenario when unset or empty', () => {
    expect(chosenIds(undefined, IDS)).toEqual(new Set(IDS));
    expect(chosenIds(' ', IDS)).toEqual(new Set(IDS));
  });

  it('takes a comma- or space-separated list of ids', () => {
    expect(chosenIds('d,idle', IDS)).toEqual(new Set(['d', 'idle']));
    expect(chosenIds('backlog a', IDS)).toEqual(new Set(['backlog', 'a']));
  });

  it('reads a word of single-letter ids as each letter, as before the longer ids', () => {
    expect(chosenIds('ab', IDS)).toEqual(new Set(['a', 'b']));
    expect(chosenIds('c', IDS)).toEqual(new Set(['c']));
  });

  it('does not read a longer id as the letters it contains', () => {
    // 'idle' holds a 'd' and 'backlog' an 'a', 'b' and 'c': neither runs those.
    expect(chosenIds('idle', IDS)).toEqual(new Set(['idle']));
    expect(chosenIds('backlog', IDS)).toEqual(new Set(['backlog']));
  });

  it('refuses an unknown id, naming the known ones', () => {
    expect(() => chosenIds('a,e', IDS)).toThrow(/unknown scenario "e".*idle, backlog/);
  });
});

describe('relativeTo', () => {
  it('divides each figure by the reference, rounded', () => {
    expect(relativeTo({ cpu: 0.7, rss: 300 }, { cpu: 0.77, rss: 330 })).toEqual({ cpu: 1.1, rss: 1.1 });
    expect(relativeTo({ rate: 3 }, { rate: 1 }, 3)).toEqual({ rate: 0.333 });
  });

  it('leaves out figures without a usable reference or value', () => {
    expect(
      relativeTo(
        { zero: 0, missing: 1, nan: Number.NaN, bad: 2, ok: 4 },
        { zero: 1, nan: 1, bad: Number.NaN, ok: 2 },
      ),
    ).toEqual({ ok: 0.5 });
  });
});

describe('exactlyOnce', () => {
  it('holds only when every request has one outcome and none has two', () => {
    expect(exactlyOnce({ requestsWithOutcome: 100, duplicateOutcomes: 0 }, 100)).toBe(true);
    expect(exactlyOnce({ requestsWithOutcome: 99, duplicateOutcomes: 0 }, 100)).toBe(false);
    expect(exactlyOnce({ requestsWithOutcome: 100, duplicateOutcomes: 1 }, 100)).toBe(false);
  });
});

describe('the broker warm-up', () => {
  it('takes 20,000 bulk requests and 30 paced seconds when unset or blank', () => {
    expect(warmUpSettings({})).toEqual({ bulkRequests: 20_000, pacedSeconds: 30 });
    expect(warmUpSettings({ BENCH_WARMUP_REQUESTS: ' ', BENCH_WARMUP_SECONDS: '' })).toEqual({
      bulkRequests: 20_000,
      pacedSeconds: 30,
    });
  });

  it('takes the sizes given', () => {
    expect(warmUpSettings({ BENCH_WARMUP_REQUESTS: '5000', BENCH_WARMUP_SECONDS: '0' })).toEqual({
      bulkRequests: 5_000,
      pacedSeconds: 0,
    });
  });

  it('is left out entirely when no bulk requests are asked for', () => {
    expect(warmUpSettings({ BENCH_WARMUP_REQUESTS: '0', BENCH_WARMUP_SECONDS: '30' })).toEqual({
      bulkRequests: 0,
      pacedSeconds: 0,
    });
  });

  it('refuses a size that is not a whole number, naming the setting', () => {
    expect(() => warmUpSettings({ BENCH_WARMUP_REQUESTS: '2e3.5' })).toThrow(/BENCH_WARMUP_REQUESTS/);
    expect(() => warmUpSettings({ BENCH_WARMUP_SECONDS: '-1' })).toThrow(/BENCH_WARMUP_SECONDS.*"-1"/);
    expect(() => warmUpSettings({ BENCH_WARMUP_SECONDS: 'soon' })).toThrow(/BENCH_WARMUP_SECONDS/);
  });
});

describe('CPU per 1,000 requests', () => {
  const cores = { service: 0.96, kafka: 0.22, registry: 0, redis: 0.15, sandbox: 0.19, bench: 0.1 };

  it('sums the named processes only: the sandbox and the counting stay out', () => {
    // (0.96 + 0.22 + 0 + 0.15) cores over 31.5 s for 100,000 requests.
    expect(cpuSecondsPer1000(cores, ['service', ...STACK_PROCESSES], 31.5, 100_000)).toBe(0.419);
    expect(cpuSecondsPer1000(cores, ['service'], 31.5, 100_000)).toBe(0.302);
  });

  it('counts a process it was not given as idle', () => {
    expect(cpuSecondsPer1000({ service: 1 }, ['service', 'kafka'], 10, 10_000)).toBe(1);
  });

  it('gives a run without requests no finite figure, so that it never reads as free', () => {
    expect(Number.isFinite(cpuSecondsPer1000(cores, ['service'], 10, 0))).toBe(false);
    expect(JSON.stringify({ cpu: cpuSecondsPer1000(cores, ['service'], 10, 0) })).toBe('{"cpu":null}');
  });
});

describe('ratios', () => {
  const run = (system: Measured['system'], extra: Partial<Measured>): Measured => ({
    system,
    coresUsed: {},
    outcomes: 1,
    requestsWithOutcome: 1,
    duplicateOutcomes: 0,
    seconds: 1,
    outcomesPerSecond: 100,
    cpuSecondsPer1000: 0.3,
    peakRssMiB: 200,
    vendor: { billed: 1, maxInOneSecond: 1, maxInAnySlidingSecond: 1, rateLimited: 0 },
    publishSeconds: 0,
    ...extra,
  });

  it('sets the service with its stack against the baseline with its stack', () => {
    expect(
      ratios(
        run('service', { outcomesPerSecond: 3174.8, withStackCpuSecondsPer1000: 0.42 }),
        run('baseline', {
          outcomesPerSecond: 2838.7,
          cpuSecondsPer1000: 0.23,
          withStackCpuSecondsPer1000: 0.49,
        }),
      ),
    ).toEqual({ throughput: 1.12, cpuPer1000: 1.3, cpuPer1000WithStack: 0.86, peakRss: 1 });
  });

  it("sets every process of the service's run against every process of the baseline's", () => {
    const figures = ratios(
      run('service', { run: { cores: 1.58, cpuSecondsPer1000: 0.568 } }),
      run('baseline', { run: { cores: 1.61, cpuSecondsPer1000: 0.454 } }),
    );
    expect(figures.cpuPer1000Run).toBe(1.25);
    expect(
      ratios(run('service', { run: { cores: 1, cpuSecondsPer1000: 0.5 } }), run('baseline', {})),
    ).not.toHaveProperty('cpuPer1000Run');
  });

  it('leaves the stack ratio out when a side has no stack figure (a stack that is not local)', () => {
    const figures = ratios(run('service', { withStackCpuSecondsPer1000: 0.42 }), run('baseline', {}));
    expect(figures).not.toHaveProperty('cpuPer1000WithStack');
    expect(figures.throughput).toBe(1);
  });
});

describe('the figures of a whole run', () => {
  it("adds the system, the sandbox and the stack, and leaves the benchmark's own counting out", () => {
    // Reference run at 3eb2133, (a) service: 2,779.5 results/s.
    const cores = { service: 0.96, sandbox: 0.157, kafka: 0.231, registry: 0.007, redis: 0.14, bench: 0.084 };
    const seconds = 100_000 / 2779.5;
    expect(runFigures(cores, 'service', seconds, 100_000)).toEqual({
      cores: 1.495,
      cpuSecondsPer1000: 0.538,
    });
  });

  it('counts a process it has no figure for as idle', () => {
    expect(runFigures({ 'one-instance': 1, sandbox: 0.5 }, 'one-instance', 10, 10_000)).toEqual({
      cores: 1.5,
      cpuSecondsPer1000: 1.5,
    });
  });
});
