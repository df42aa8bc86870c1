import { RESULT_STATUSES, VEHICLE_SEARCH_STATUSES } from '../contract/envelopes.js';
import { OPERATIONS, isOperation, type Operation } from '../contract/operations.js';
import { ERROR_KINDS } from '../errors.js';
import { badArguments } from './errors.js';
import type { FilterCriteria } from './filters.js';
import { TOPIC_KINDS, type TopicKind } from './topics.js';
import { checkWindow, type Window } from './window.js';

/**
 * Command-line values → typed options. Checked here rather than by commander so that every
 * bad value ends the same way: one line naming the flag, exit code 2, before any connection.
 */
export interface WindowFlags {
  from?: string;
  to?: string;
  partition?: string;
  fromOffset?: string;
  toOffset?: string;
}

export interface FilterFlags {
  requestId?: string[];
  operation?: string[];
  status?: string[];
  errorKind?: string[];
  key?: string[];
}

/** Commander collector: repeated flags and comma-separated values make one list. */
export function collect(value: string, previous: string[] | undefined): string[] {
  const items = value
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v.length > 0);
  return [...(previous ?? []), ...items];
}

export function parseWindow(flags: WindowFlags): Window {
  const byOffset = [flags.partition, flags.fromOffset, flags.toOffset].some((v) => v !== undefined);
  const byTime = flags.from !== undefined || flags.to !== undefined;
  if (byOffset && byTime) {
    throw badArguments(
      'use either a time window (--from/--to) or an offset range (--partition/--from-offset/--to-offset)',
    );
  }
  const window: Window = byOffset
    ? {
        kind: 'offsets',
        partition: optionalCount('--partition', flags.partition),
        fromOffset: optionalCount('--from-offset', flags.fromOffset),
        toOffset: optionalCount('--to-offset', flags.toOffset),
      }
    : { kind: 'time', from: optionalTime('--from', flags.from), to: optionalTime('--to', flags.to) };
  checkWindow(window);
  return window;
}

// A zone is required with a time of day: an audit window must not shift with the auditor's TZ.
const ISO_TIME = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2}))?$/;

export function optionalTime(flag: string, value: string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const time = ISO_TIME.test(value) ? new Date(value) : undefined;
  if (!time || Number.isNaN(time.getTime())) {
    throw badArguments(
      `${flag} must be an ISO 8601 time with a zone, e.g. 2026-11-21T10:00:00Z (got ${value})`,
    );
  }
  return time;
}

export function optionalCount(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value))) {
    throw badArguments(`${flag} must be a whole number ≥ 0 (got ${value})`);
  }
  return Number(value);
}

export function parseFilter(flags: FilterFlags): FilterCriteria {
  const statuses: readonly string[] = [...RESULT_STATUSES, ...VEHICLE_SEARCH_STATUSES];
  return {
    requestIds: flags.requestId,
    operations: parseOperations(flags.operation),
    statuses: oneOf('--status', flags.status, statuses),
    errorKinds: oneOf('--error-kind', flags.errorKind, ERROR_KINDS),
    keys: flags.key,
  };
}

export function parseOperations(values: string[] | undefined): Operation[] | undefined {
  return oneOf('--operation', values, OPERATIONS)?.filter(isOperation);
}

export function parseKinds(values: string[] | undefined): TopicKind[] | undefined {
  return oneOf('--kind', values, TOPIC_KINDS) as TopicKind[] | undefined;
}

function oneOf(flag: string, values: string[] | undefined, allowed: readonly string[]): string[] | undefined {
  for (const value of values ?? []) {
    if (!allowed.includes(value)) throw badArguments(`${flag} ${value} is not one of ${allowed.join(', ')}`);
  }
  return values;
}
