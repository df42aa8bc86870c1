import { LANES, OPERATIONS, type Operation, type TopicNames } from '../contract/operations.js';
import { firstHeader, member, type DecodedRecord } from './records.js';
import type { Window } from './window.js';

/**
 * Which messages a replay or a redrive keeps. Criteria combine with AND; the values given for
 * one criterion combine with OR (`--status ok,not_found`). A message lacking the member a
 * criterion looks at (an undecodable value, a request has no `status`) does not match it.
 */
export interface FilterCriteria {
  requestIds?: readonly string[] | undefined;
  operations?: readonly Operation[] | undefined;
  /** `status` of results (ok, not_found, accepted) and vehicle-search events (pending...). */
  statuses?: readonly string[] | undefined;
  /** `error.kind` of dead letters. */
  errorKinds?: readonly string[] | undefined;
  keys?: readonly string[] | undefined;
  /** Messages by coordinates, `<topic>/<partition>/<offset>` (the console's one-by-one choice). */
  coordinates?: readonly string[] | undefined;
}

export type RecordFilter = (record: DecodedRecord) => boolean;

export function buildFilter(topics: TopicNames, criteria: FilterCriteria): RecordFilter {
  const operationOf = operationResolver(topics);
  const checks: RecordFilter[] = [];
  const add = (wanted: readonly unknown[] | undefined, read: (record: DecodedRecord) => unknown): void => {
    if (wanted === undefined || wanted.length === 0) return;
    const set = new Set<unknown>(wanted);
    checks.push((record) => set.has(read(record)));
  };
  add(criteria.requestIds, requestIdOf);
  add(criteria.operations, operationOf);
  add(criteria.statuses, (r) => member(r.value, 'status'));
  add(criteria.errorKinds, (r) => member(member(r.value, 'error'), 'kind'));
  add(criteria.keys, (r) => r.key);
  add(criteria.coordinates, (r) => `${r.source.topic}/${r.source.partition}/${r.source.offset}`);
  return (record) => checks.every((check) => check(record));
}

/**
 * The requestId a message belongs to: the envelope's member, else the CloudEvents subject the
 * service sets on everything it writes (so an undecodable output still joins its trail).
 */
export function requestIdOf(record: DecodedRecord): string | undefined {
  const fromValue = member(record.value, 'requestId');
  return typeof fromValue === 'string' ? fromValue : firstHeader(record, 'ce_subject');
}

/** The envelope's `operation`, else the one its topic is for (requests, results, events). */
export function operationResolver(topics: TopicNames): (record: DecodedRecord) => Operation | undefined {
  const byTopic = new Map<string, Operation>([[topics.vehicleSearchEvents, 'vehicle-async']]);
  for (const operation of OPERATIONS) {
    for (const lane of LANES) byTopic.set(topics.request(operation, lane), operation);
    byTopic.set(topics.result(operation), operation);
  }
  return (record) => {
    const fromValue = member(record.value, 'operation');
    if (typeof fromValue === 'string' && (OPERATIONS as readonly string[]).includes(fromValue)) {
      return fromValue as Operation;
    }
    return byTopic.get(record.source.topic);
  };
}

/**
 * The message's own timestamp against a time window (half-open [from, to)). What a window
 * reads is the offsets it resolved to (window.ts), and a message inside them is kept even when
 * its producer-set timestamp is out of order and falls outside: dropping it lost it for good,
 * since the next window starts after it too. This only tells such messages apart (counted).
 */
export function inWindow(record: DecodedRecord, window: Window): boolean {
  if (window.kind !== 'time') return true;
  const at = record.source.timestamp;
  if (window.from !== undefined && at < window.from.getTime()) return false;
  return window.to === undefined || at < window.to.getTime();
}
