import { describe, expect, it } from 'vitest';
import { chosenIds, exactlyOnce, relativeTo, warmUpSettings } from '../../../bench/scenario.js';

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
