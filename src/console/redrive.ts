import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { AuditError } from '../audit/errors.js';
import type { FilterCriteria } from '../audit/filters.js';
import type { LineSink } from '../audit/jsonl.js';
import { runRedrive } from '../audit/run-redrive.js';
import { namesOf } from '../audit/scan.js';
import type { Window } from '../audit/window.js';
import type { ConsoleAuditEvent } from '../contract/audit-events.js';
import { isOperation } from '../contract/operations.js';
import { isErrorKind } from '../errors.js';
import { actorOf, requireOperator, roleOf, type Identity } from './auth.js';
import { failed } from './dead-letters.js';
import { maskKey } from '../audit/mask.js';
import { HeldPlans } from './redrive-plans.js';
import type { ConsoleDeps } from './index.js';
import { page } from './index.js';
import { readQuery, toCriteria, type DeadLetterQuery } from './query.js';

/**
 * Redrive from the console: `redrive`'s library call, first as a dry run that lists what
 * would go, then — confirmed — for real, its lines shown as they come. The same rule holds:
 * a request keeps its requestId, so one that was in fact paid reuses its outcome.
 */
type Body = Record<string, string | string[] | undefined>;

export interface Job {
  id: string;
  state: 'running' | 'done' | 'failed';
  lines: Record<string, unknown>[];
  error?: string;
  summary?: { redriven: number; skipped: number; read: number };
}

/** Redrives whose progress stays on view: the oldest finished one goes past this many. */
const KEPT_JOBS = 20;

export function registerRedrive(scope: FastifyInstance, deps: ConsoleDeps): void {
  const jobs = new Map<string, Job>();
  const guarded = { preHandler: [scope.csrfProtection.bind(scope), requireOperator] };
  scope.get('/redrive', (request, reply) => page(request, reply, 'redrive', {}));
  const plans = new HeldPlans<Chosen>(() => deps.now().getTime());
  scope.post<{ Body: Body }>('/redrive/plan', guarded, async (request, reply) => {
    const chosen = chosenOf(request.body);
    const view = { lines: [] as unknown[] };
    try {
      const lines = await dryRun(deps, chosen);
      const coordinates = lines.filter((l) => l.action === 'would-redrive').map((l) => String(l.deadLetter));
      const planId = coordinates.length > 0 ? plans.hold({ choice: chosen, coordinates }) : undefined;
      return await page(request, reply, 'redrive-plan', { ...view, lines, planId, error: undefined });
    } catch (error) {
      return failed(request, reply, 'redrive-plan', view, error);
    }
  });
  scope.post<{ Body: Body }>('/redrive/run', guarded, async (request, reply) => {
    const plan = plans.take(typeof request.body.plan === 'string' ? request.body.plan : undefined);
    if (!plan) {
      return page(request, reply.code(409), 'redrive-plan', {
        lines: [],
        error:
          'This dry run is not held any more (confirmed already, older than 15 minutes, or the replica restarted): run it again.',
      });
    }
    // The dry run checked the filter; the run reads the same window for the listed dead letters.
    const { window, filter } = criteriaOf(deps, { ...plan.choice, deadLetters: [] });
    const criteria: Criteria = { window, filter: { ...filter, coordinates: plan.coordinates } };
    const job: Job = { id: randomUUID(), state: 'running', lines: [] };
    jobs.set(job.id, job);
    forgetOldJobs(jobs);
    void runJob(
      deps,
      job,
      { chosen: plan.choice, criteria },
      { role: roleOf(request), actor: actorOf(request) },
    );
    return reply.redirect(`/console/redrive/jobs/${job.id}`, 303);
  });
  // A job's lines name requests and their failures: the operator who may start one sees them.
  const operatorOnly = { preHandler: requireOperator };
  scope.get<{ Params: { id: string } }>('/redrive/jobs/:id', operatorOnly, (request, reply) => {
    const job = jobs.get(request.params.id);
    if (!job) return reply.code(404).type('text/plain').send('no such redrive');
    return page(request, reply, 'redrive-job', { job });
  });
  scope.get<{ Params: { id: string } }>(
    '/redrive/jobs/:id/progress',
    operatorOnly,
    (request, reply: FastifyReply) => {
      const job = jobs.get(request.params.id);
      if (!job) return reply.code(404).send({ error: 'no such redrive' });
      return reply.send(job);
    },
  );
}

interface Chosen {
  query: DeadLetterQuery;
  /** `<partition>/<offset>` of the errors topic, when chosen one by one. */
  deadLetters: string[];
}

function chosenOf(body: Body): Chosen {
  const raw = body.deadLetter;
  const list = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
  const fields = Object.fromEntries(Object.entries(body).filter(([, v]) => typeof v === 'string'));
  const query = readQuery(fields, new Date());
  // The run confirmed must be the one listed: fix the window's end at the dry run.
  if (query.to === '') query.to = new Date().toISOString();
  return {
    query,
    deadLetters: list.filter((v) => /^\d+\/\d+$/.test(v)),
  };
}

type Criteria = ReturnType<typeof toCriteria>;

function criteriaOf(deps: ConsoleDeps, chosen: Chosen): Criteria {
  const { window, filter } = toCriteria(chosen.query);
  const errors = namesOf(deps.audit()).errors;
  const byCoordinates: FilterCriteria =
    chosen.deadLetters.length === 0 ? {} : { coordinates: chosen.deadLetters.map((d) => `${errors}/${d}`) };
  return { window, filter: { ...filter, ...byCoordinates } };
}

/** Drops the oldest finished redrives past KEPT_JOBS; running ones stay. */
export function forgetOldJobs(jobs: Map<string, Job>): void {
  for (const [id, job] of jobs) {
    if (jobs.size <= KEPT_JOBS) return;
    if (job.state !== 'running') jobs.delete(id);
  }
}

/** A redrive's lines as the console shows them: each message key masked (mask.ts). */
function collectingSink(lines: Record<string, unknown>[]): LineSink {
  return {
    write: (line) => {
      const fields = line as Record<string, unknown>;
      lines.push(typeof fields.key === 'string' ? { ...fields, key: maskKey(fields.key) } : fields);
      return Promise.resolve();
    },
    close: () => Promise.resolve(),
  };
}

async function dryRun(deps: ConsoleDeps, chosen: Chosen): Promise<Record<string, unknown>[]> {
  const lines: Record<string, unknown>[] = [];
  try {
    await runRedrive(deps.audit(), {
      ...criteriaOf(deps, chosen),
      dryRun: true,
      sink: collectingSink(lines),
    });
  } catch (error) {
    if (!(error instanceof AuditError && error.code === 'EMPTY_WINDOW')) throw error;
  }
  return lines;
}

export async function runJob(
  deps: Pick<ConsoleDeps, 'audit' | 'logger' | 'now'> & { auditLog: Pick<ConsoleDeps['auditLog'], 'write'> },
  job: Job,
  { chosen, criteria }: { chosen: Chosen; criteria: Criteria },
  { role, actor }: Identity,
): Promise<void> {
  const target = describeChoice(chosen, criteria.window);
  try {
    // Recorded before anything is sent, failing closed as a reveal does: a process killed
    // half-way still leaves the record that a redrive began.
    await deps.auditLog.write({
      action: 'redrive-started',
      actor,
      role,
      target,
      at: deps.now().toISOString(),
    });
  } catch (error) {
    deps.logger.error({ err: error }, 'console audit event could not be written; redrive not started');
    job.state = 'failed';
    job.error = 'the audit event could not be written: nothing was republished';
    return;
  }
  try {
    const s = await runRedrive(deps.audit(), { ...criteria, dryRun: false, sink: collectingSink(job.lines) });
    job.summary = { redriven: s.redriven, skipped: s.skipped, read: s.read };
    job.state = 'done';
  } catch (error) {
    job.state = 'failed';
    job.error = error instanceof Error ? error.message : String(error);
  }
  await deps.auditLog
    .write({
      action: 'redrive',
      actor,
      role,
      target,
      count: job.summary?.redriven ?? job.lines.filter((l) => l.action === 'redriven').length,
      at: deps.now().toISOString(),
    })
    .catch((error: unknown) => {
      deps.logger.error({ err: error }, 'console audit event could not be written');
    });
}

type RedriveTarget = Extract<ConsoleAuditEvent, { action: 'redrive' }>['target'];

/**
 * The choice without personal data: a key filter is said to be there, not what it was. The
 * window as read, in UTC (both ends are set once the query has been checked).
 */
function describeChoice(chosen: Chosen, window: Window): RedriveTarget {
  const { query } = chosen;
  const time = (date: Date | undefined, given: string): string => date?.toISOString() ?? given;
  const [from, to] = window.kind === 'time' ? [window.from, window.to] : [undefined, undefined];
  return {
    from: time(from, query.from),
    to: time(to, query.to),
    ...(isOperation(query.operation) ? { operation: query.operation } : {}),
    ...(isErrorKind(query.kind) ? { kind: query.kind } : {}),
    ...(query.requestId ? { requestId: query.requestId } : {}),
    ...(query.key ? { keyFilter: true as const } : {}),
    ...(chosen.deadLetters.length > 0 ? { deadLetters: chosen.deadLetters } : {}),
  };
}
