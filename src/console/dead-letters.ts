import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { readOne } from '../audit/collect.js';
import { AuditError } from '../audit/errors.js';
import { member, type DecodedRecord } from '../audit/records.js';
import { namesOf, scan, type AuditContext } from '../audit/scan.js';
import { isOperation, OPERATIONS } from '../contract/operations.js';
import { ERROR_KINDS, isErrorKind } from '../errors.js';
import { actorOf, requireOperator, roleOf } from './auth.js';
import type { ConsoleDeps } from './index.js';
import { page } from './index.js';
import { maskKey, maskValue } from '../audit/mask.js';
import { QUERY_FIELDS, queryString, readQuery, toCriteria, type DeadLetterQuery } from './query.js';

/**
 * Dead letters: a window of `<prefix>.errors` with replay's filters, newest first, a page at a
 * time; one dead letter in full, masked until an operator reveals it (audited). A window is
 * read once and kept a minute, so paging does not read it again.
 */
export const PAGE_SIZE = 50;
/** Rows a window lists at most, the newest: a narrower window shows the older ones. */
export const LISTED_AT_MOST = 10_000;
const CACHE_MS = 60_000;

export interface DeadLetterRow {
  at: string;
  partition: number;
  offset: string;
  requestId: string | null;
  operation: string;
  kind: string;
  reason: string;
  key: string | null;
}

function textOf(value: unknown, fallback: string): string {
  return typeof value === 'string' ? value : fallback;
}

export function rowOf(record: DecodedRecord): DeadLetterRow {
  const error = member(record.value, 'error');
  const requestId = member(record.value, 'requestId');
  return {
    at: new Date(record.source.timestamp).toISOString(),
    partition: record.source.partition,
    offset: record.source.offset,
    requestId: typeof requestId === 'string' ? requestId : null,
    operation: textOf(member(record.value, 'operation'), '?'),
    kind: textOf(member(error, 'kind'), record.error === undefined ? '?' : 'undecodable'),
    reason: maskValue(textOf(member(error, 'message'), record.error ?? ''), 'reason') as string,
    key: maskKey(record.key),
  };
}

export function registerDeadLetters(scope: FastifyInstance, deps: ConsoleDeps): void {
  const list = cachedList(deps);
  scope.get<{ Querystring: Record<string, string> }>('/dead-letters', async (request, reply) => {
    const query = readQuery(request.query, deps.now());
    const pageNo = Math.max(1, Number.parseInt(request.query.page ?? '1', 10) || 1);
    const view = {
      query,
      pageNo,
      pageSize: PAGE_SIZE,
      operations: OPERATIONS,
      kinds: ERROR_KINDS,
      queryString,
    };
    if (query.key !== '' && roleOf(request) !== 'operator') return keyFilterRefused(request, reply, view);
    try {
      const { rows, matched } = await list(query);
      // A search by key tells whether that person has dead letters: audited (each page of it),
      // without the key, before any row is shown (a failed write shows none).
      if (query.key !== '') await auditKeySearch(request, deps, query, matched);
      const shown = rows.slice((pageNo - 1) * PAGE_SIZE, pageNo * PAGE_SIZE);
      return await page(request, reply, 'dead-letters', {
        ...view,
        rows: shown,
        total: rows.length,
        matched,
        error: undefined,
      });
    } catch (error) {
      return failed(request, reply, 'dead-letters', { ...view, rows: [], total: 0, matched: 0 }, error);
    }
  });
  scope.get<{ Params: { partition: string; offset: string } }>(
    '/dead-letters/:partition/:offset',
    (request, reply) => showOne(request, reply, deps, false),
  );
  scope.post<{ Params: { partition: string; offset: string } }>(
    '/dead-letters/:partition/:offset/reveal',
    { preHandler: [scope.csrfProtection.bind(scope), requireOperator] },
    async (request, reply) => {
      const { partition, offset } = request.params;
      // Bad coordinates name no dead letter: refused before an audit event is written.
      if (!/^\d+$/.test(partition) || !/^\d+$/.test(offset)) {
        return reply.code(400).type('text/plain').send('bad coordinates');
      }
      await deps.auditLog.write({
        action: 'reveal',
        actor: actorOf(request),
        role: roleOf(request),
        target: { deadLetter: `${namesOf(deps.audit()).errors}/${partition}/${offset}` },
        count: 1,
        at: deps.now().toISOString(),
      });
      return showOne(request, reply, deps, true);
    },
  );
}

/** A window's rows, read once and kept CACHE_MS, so paging does not read it again. */
function cachedList(
  deps: ConsoleDeps,
): (query: DeadLetterQuery) => Promise<{ rows: DeadLetterRow[]; matched: number }> {
  const cache = new Map<string, { rows: DeadLetterRow[]; matched: number; at: number }>();
  return async (query) => {
    const key = queryString(query);
    const hit = cache.get(key);
    if (hit && deps.now().getTime() - hit.at < CACHE_MS) return hit;
    const listed = await readDeadLetterRows(deps.audit(), query);
    for (const [k, v] of cache) if (deps.now().getTime() - v.at >= CACHE_MS) cache.delete(k);
    cache.set(key, { ...listed, at: deps.now().getTime() });
    return listed;
  };
}

async function auditKeySearch(
  request: FastifyRequest,
  deps: ConsoleDeps,
  query: DeadLetterQuery,
  count: number,
): Promise<void> {
  const { window } = toCriteria(query);
  const when = (date: Date | undefined): string | undefined => date?.toISOString();
  const [from, to] = window.kind === 'time' ? [when(window.from), when(window.to)] : [undefined, undefined];
  await deps.auditLog.write({
    action: 'dead-letter-search',
    actor: actorOf(request),
    role: roleOf(request),
    target: {
      ...(from === undefined ? {} : { from }),
      ...(to === undefined ? {} : { to }),
      ...(isOperation(query.operation) ? { operation: query.operation } : {}),
      ...(isErrorKind(query.kind) ? { kind: query.kind } : {}),
      ...(query.requestId ? { requestId: query.requestId } : {}),
      keyFilter: true,
    },
    count,
    at: deps.now().toISOString(),
  });
}

/**
 * A message key is a tax id or a plate: whether one has dead letters is itself personal data,
 * so only an operator (who may reveal them) may look one up. The key is not shown back.
 */
function keyFilterRefused(
  request: FastifyRequest,
  reply: FastifyReply,
  view: { query: DeadLetterQuery } & Record<string, unknown>,
): FastifyReply {
  reply.code(403);
  return page(request, reply, 'dead-letters', {
    ...view,
    query: { ...view.query, key: '' },
    rows: [],
    total: 0,
    matched: 0,
    error: 'Filtering by key needs the operator token: a key is personal data.',
  });
}

/** The newest `atMost` of the rows added, kept in bounded memory, and how many were added. */
export class NewestRows {
  private rows: DeadLetterRow[] = [];
  matched = 0;

  constructor(private readonly atMost: number) {}

  add(row: DeadLetterRow): void {
    this.matched += 1;
    this.rows.push(row);
    if (this.rows.length >= 2 * this.atMost) this.rows = this.newestFirst();
  }

  newestFirst(): DeadLetterRow[] {
    return this.rows.sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0)).slice(0, this.atMost);
  }
}

/**
 * The window's dead letters as rows, newest first, at most LISTED_AT_MOST of them, and how many
 * matched. Each is made a row as it is read and its message dropped: a wide window (any user
 * may ask for years) costs the replica a scan, never the memory of every dead letter in it.
 */
async function readDeadLetterRows(
  ctx: AuditContext,
  query: DeadLetterQuery,
): Promise<{ rows: DeadLetterRow[]; matched: number }> {
  const { window, filter } = toCriteria(query);
  const kept = new NewestRows(LISTED_AT_MOST);
  try {
    await scan(ctx, {
      selection: { kinds: ['errors'] },
      window,
      filter,
      onMatch: (record) => {
        kept.add(rowOf(record));
        return Promise.resolve();
      },
    });
  } catch (error) {
    if (!(error instanceof AuditError && error.code === 'EMPTY_WINDOW')) throw error;
  }
  return { rows: kept.newestFirst(), matched: kept.matched };
}

async function showOne(
  request: FastifyRequest<{ Params: { partition: string; offset: string } }>,
  reply: FastifyReply,
  deps: ConsoleDeps,
  revealed: boolean,
): Promise<FastifyReply> {
  const partition = Number.parseInt(request.params.partition, 10);
  const offset = Number.parseInt(request.params.offset, 10);
  if (!Number.isSafeInteger(partition) || !Number.isSafeInteger(offset)) {
    return reply.code(400).type('text/plain').send('bad coordinates');
  }
  const ctx = deps.audit();
  const record = await readOne(ctx, { topic: namesOf(ctx).errors, partition, offset }).catch(
    (error: unknown) => {
      if (error instanceof AuditError) return undefined;
      throw error;
    },
  );
  if (!record) return reply.code(404).type('text/plain').send('no dead letter at these coordinates');
  const value = revealed ? record.value : maskValue(record.value);
  return page(request, reply, 'dead-letter', {
    row: rowOf(record),
    key: revealed ? record.key : maskKey(record.key),
    revealed,
    reason: member(value, 'error'),
    origin: member(value, 'origin'),
    requestBody: member(value, 'request'),
    attempts: member(value, 'attempts'),
    failedAt: member(value, 'failedAt'),
    undecodable: record.error,
  });
}

export function failed(
  request: FastifyRequest,
  reply: FastifyReply,
  view: string,
  data: Record<string, unknown>,
  error: unknown,
): FastifyReply {
  if (!(error instanceof AuditError)) throw error;
  reply.code(error.code === 'BAD_ARGUMENTS' ? 400 : 502);
  return page(request, reply, view, { ...data, error: error.message });
}

export { QUERY_FIELDS };
