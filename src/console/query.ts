import { optionalTime, parseFilter } from '../audit/flags.js';
import type { FilterCriteria } from '../audit/filters.js';
import type { Window } from '../audit/window.js';

/**
 * The dead-letter filters of the pages, as `replay` has them (operation, kind, key,
 * requestId) over a time window. An empty `to` means "up to now": the window read for the first
 * page is kept a minute under the same query, so its next pages list the same messages.
 */
export interface DeadLetterQuery {
  from: string;
  to: string;
  operation: string;
  kind: string;
  key: string;
  requestId: string;
}

export const QUERY_FIELDS = ['from', 'to', 'operation', 'kind', 'key', 'requestId'] as const;

export function readQuery(raw: Record<string, unknown>, now: Date): DeadLetterQuery {
  const text = (name: string): string => {
    const value = raw[name];
    return typeof value === 'string' ? value.trim() : '';
  };
  const from = text('from') || new Date(now.getTime() - 3600_000).toISOString();
  return {
    from,
    to: text('to'),
    operation: text('operation'),
    kind: text('kind'),
    key: text('key'),
    requestId: text('requestId'),
  };
}

/** Throws the audit code's BAD_ARGUMENTS error, naming the field, for a bad value. */
export function toCriteria(query: DeadLetterQuery): { window: Window; filter: FilterCriteria } {
  const list = (value: string): string[] | undefined => (value === '' ? undefined : [value]);
  const window: Window = {
    kind: 'time',
    from: optionalTime('from', query.from),
    to: optionalTime('to', query.to || undefined),
  };
  const filter = parseFilter({
    operation: list(query.operation),
    errorKind: list(query.kind),
    key: list(query.key),
    requestId: list(query.requestId),
  });
  return { window, filter };
}

export function queryString(query: DeadLetterQuery, extra: Record<string, string> = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries({ ...query, ...extra }))
    if (value !== '') params.set(name, value);
  return params.toString();
}
