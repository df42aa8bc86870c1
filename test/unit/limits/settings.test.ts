import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/errors.js';
import { createLimiters, type OperationLimitSettings } from '../../../src/limits/index.js';
import { quotaShape } from '../../../src/limits/settings.js';
import { settingsWith, silentLogger } from './helpers.js';

const build = (vehicle: OperationLimitSettings, rateMargin?: number) => () =>
  createLimiters({
    settings: settingsWith({ vehicle }),
    keyPrefix: 'test',
    logger: silentLogger,
    rateMargin,
  });

describe('limit settings', () => {
  it.each([
    [{ ratePerSecond: 0, maxConcurrent: 1 }, 'limits.vehicle.ratePerSecond'],
    [{ ratePerSecond: -2, maxConcurrent: 1 }, 'limits.vehicle.ratePerSecond'],
    [{ ratePerSecond: Number.NaN, maxConcurrent: 1 }, 'limits.vehicle.ratePerSecond'],
    [{ ratePerSecond: 1, maxConcurrent: 0 }, 'limits.vehicle.maxConcurrent'],
    [{ ratePerSecond: 1, maxConcurrent: 1.5 }, 'limits.vehicle.maxConcurrent'],
    [{ ratePerSecond: 1, maxConcurrent: 1, spendCapPerHour: 0 }, 'limits.vehicle.spendCapPerHour'],
    [{ ratePerSecond: 1, maxConcurrent: 1, spendCapPerHour: 2.5 }, 'limits.vehicle.spendCapPerHour'],
  ])('rejects %o naming %s', (vehicle, setting) => {
    expect(build(vehicle)).toThrow(ConfigError);
    expect(build(vehicle)).toThrow(setting);
  });

  it('accepts fractional rates and a missing spend cap', () => {
    expect(build({ ratePerSecond: 0.5, maxConcurrent: 2 })).not.toThrow();
  });

  it('names an operation that has no limits at all', () => {
    const settings = settingsWith();
    const partial: Partial<typeof settings> = { ...settings };
    delete partial.vehicle;
    expect(() =>
      createLimiters({ settings: partial as typeof settings, keyPrefix: 'test', logger: silentLogger }),
    ).toThrow('limits.vehicle');
  });

  it('rejects a rate margin outside [0, 1)', () => {
    expect(build({ ratePerSecond: 1, maxConcurrent: 1 }, 1)).toThrow('limits.rateMargin');
  });
});

describe('quota shape', () => {
  it('is the rate as a count per second, the window widened by the margin', () => {
    const shape = quotaShape(300, 0.035);
    expect(shape.perWindow).toBe(300);
    expect(shape.windowMs).toBeCloseTo(1035, 6);
    expect(shape.spacingMs).toBeCloseTo(1035 / 300, 6);
    expect(shape.burstMs).toBeCloseTo(103.5, 6);
    expect(shape.burstSpacingMs).toBeCloseTo(1035 / 300 / 4, 6);
  });

  it('rounds a fractional rate down to whole starts per second, never over the rate', () => {
    expect(quotaShape(2.5, 0)).toMatchObject({ perWindow: 2, windowMs: 1000 });
  });

  it('gives a rate under one a second a window long enough for one start', () => {
    expect(quotaShape(0.5, 0.1)).toMatchObject({ perWindow: 1 });
    expect(quotaShape(0.5, 0.1).windowMs).toBeCloseTo(2200, 6);
  });
});
