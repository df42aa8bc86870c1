import { OPERATIONS, type Operation } from '../contract/operations.js';
import { ConfigError } from '../errors.js';
import type { QuotaSettings } from './quota-store.js';
import type { LaneSettings, OperationLimitSettings } from './types.js';

export const HOUR_MS = 3_600_000;

/** Checks every operation's limits once, at construction; the message names the setting to fix. */
export function validateSettings(settings: Partial<Record<Operation, OperationLimitSettings>>): void {
  for (const operation of OPERATIONS) {
    const entry = settings[operation];
    const name = `limits.${operation}`;
    if (entry === undefined) throw new ConfigError(name, 'missing; every operation needs a limit');
    const { ratePerSecond, maxConcurrent, spendCapPerHour } = entry;
    if (!Number.isFinite(ratePerSecond) || ratePerSecond <= 0) {
      throw new ConfigError(`${name}.ratePerSecond`, `must be a number > 0, got ${String(ratePerSecond)}`);
    }
    if (!Number.isInteger(maxConcurrent) || maxConcurrent < 1) {
      throw new ConfigError(`${name}.maxConcurrent`, `must be an integer >= 1, got ${String(maxConcurrent)}`);
    }
    if (spendCapPerHour !== undefined && (!Number.isInteger(spendCapPerHour) || spendCapPerHour < 1)) {
      throw new ConfigError(
        `${name}.spendCapPerHour`,
        `must be an integer >= 1 when set (leave it out for no cap), got ${String(spendCapPerHour)}`,
      );
    }
  }
}

export function validateLanes(lanes: LaneSettings): void {
  const share = lanes.bulkMinShare;
  if (!Number.isFinite(share) || share < 0 || share >= 1) {
    throw new ConfigError('LANE_BULK_MIN_SHARE', `must be a number in [0, 1), got ${String(share)}`);
  }
}

export function validateMargin(margin: number): void {
  if (!Number.isFinite(margin) || margin < 0 || margin >= 1) {
    throw new ConfigError('limits.rateMargin', `must be a number in [0, 1), got ${String(margin)}`);
  }
}

/** A burst is let go at this many times the rate. */
const BURST_SPREAD = 4;
/** How far ahead of the pace a quiet limiter may start calls, as a share of the window. */
const BURST_SHARE = 0.1;

/**
 * The rate as the store applies it: at most `ratePerSecond` starts in any second (the largest
 * whole count at or under it; under one a second, one start per longer window), on average
 * evenly spaced, with a burst of a tenth of the window allowed. The window is widened by the
 * margin: room for the jitter between a call's start and its arrival at the vendor. The limiter
 * checks half of it (lateToleranceMs) up to the moment the request is written; the rest it
 * cannot see.
 */
export function quotaShape(ratePerSecond: number, margin: number): Omit<QuotaSettings, 'spendCapPerHour'> {
  const perWindow = Math.max(1, Math.floor(ratePerSecond));
  const windowMs = Math.max(1000, (perWindow * 1000) / ratePerSecond) * (1 + margin);
  const spacingMs = windowMs / perWindow;
  return {
    perWindow,
    windowMs,
    spacingMs,
    burstMs: windowMs * BURST_SHARE,
    burstSpacingMs: spacingMs / BURST_SPREAD,
  };
}
