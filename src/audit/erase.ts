import { Redis } from 'ioredis';
import { idempotentProducer } from '../kafka/client.js';
import type { DataSubject } from '../at-rest/subjects.js';
import { loadEraseSettings, type EraseSettings } from '../config-at-rest.js';
import {
  eraseAuditEventSchema,
  eraseStartedAuditEventSchema,
  type EraseAuditEvent,
  type EraseStartedAuditEvent,
} from '../contract/audit-events.js';
import { topicNames } from '../contract/operations.js';
import { eraseSubjectData, findSubjectData, markErasing, type SubjectData } from './erase-redis.js';
import { findRetained, maskSubject, parseSubject, type RetainedRange } from './erase-ranges.js';
import { AuditError } from './errors.js';
import type { LineSink } from './jsonl.js';
import type { AuditContext } from './scan.js';

/**
 * `erase --tax-id … | --plate …`: a data subject's request. Finds their paid outcomes and
 * pending searches in Redis by the keyed hash of the identifier, lists the Kafka partitions and
 * offset ranges that still hold their messages within retention, and, with --confirm only,
 * removes the Redis values. Every run (dry or not) writes two audit events naming the actor,
 * never the identifier: `erase-started` before it reads anything, `erase` when it ends. The
 * output masks the identifier.
 */
export interface EraseFlags {
  taxId?: string;
  plate?: string;
  confirm?: boolean;
  actor?: string;
}

export interface ErasePlan {
  subject: DataSubject;
  actor: string;
  confirm: boolean;
}

/** `actor`: who runs it, as the audit commands read it (--actor, AUDIT_ACTOR, the user). */
export function planEraseFlags(flags: EraseFlags, actor: string): ErasePlan {
  return { subject: parseSubject(flags), actor, confirm: flags.confirm === true };
}

export interface EraseSummary {
  before: SubjectData;
  after: SubjectData;
  ranges: RetainedRange[];
  event: EraseAuditEvent;
}

/**
 * The run, in an order that fails closed: its intent (`erase-started`) is on the audit topic
 * before anything is read or removed, and a run whose intent cannot be written does neither;
 * its result (`erase`) follows. A run that stops after its intent still writes its result,
 * marked incomplete, with what it had found and removed by then.
 */
export async function runErase(
  ctx: AuditContext,
  plan: ErasePlan,
  env: Readonly<Record<string, string | undefined>>,
  sink: LineSink,
): Promise<EraseSummary> {
  const settings = loadEraseSettings(env);
  const digest = settings.index.digest(plan.subject);
  const heading = {
    actor: plan.actor,
    dryRun: !plan.confirm,
    target: { kind: plan.subject.kind, subject: digest },
  };
  const redis = redisOf(settings, ctx);
  const audit = eraseAuditLog(ctx);
  const done: Done = {};
  let result: EraseAuditEvent | undefined;
  try {
    await redis.connect().catch((error: unknown) => {
      throw new AuditError('UNREACHABLE', `cannot reach Redis (REDIS_URL): ${String(error)}`, {
        cause: error,
      });
    });
    await audit.started(
      eraseStartedAuditEventSchema.parse({ action: 'erase-started', ...heading, at: now() }),
    );
    const { before, after, ranges } = await findAndErase(ctx, redis, plan, digest, done);
    for (const range of ranges) await sink.write({ retained: range });
    result = resultEvent(heading, done, false);
    await audit.finished(result);
    return { before, after, ranges, event: result };
  } finally {
    // Stopped after its intent, before its result: the result says so, with what was done.
    if (audit.wasStarted && result === undefined)
      await audit.finished(resultEvent(heading, done, true)).catch((error: unknown) => {
        ctx.warn(`the erase event of this stopped run could not be written (${messageOf(error)})`);
      });
    await audit.close();
    redis.disconnect();
  }
}

/** What a run has found and removed so far (its result event says it even when it stops). */
type Done = Partial<{ before: SubjectData; ranges: RetainedRange[]; erased: SubjectData }>;

function redisOf(settings: EraseSettings, ctx: AuditContext): Redis {
  return new Redis(settings.redisUrl, {
    ...(settings.redisPassword === undefined ? {} : { password: settings.redisPassword }),
    lazyConnect: true,
    connectTimeout: ctx.config.AUDIT_CONNECT_TIMEOUT_MS,
    maxRetriesPerRequest: 1,
    retryStrategy: () => null,
  });
}

/**
 * The Kafka scan, then Redis read (dry run) or emptied in one step (--confirm): the values the
 * subject index lists under the person, and those of the requests whose messages hold their
 * identifier (a vehicle answer naming its owner, a request keyed or described by them). With
 * --confirm the person is marked as being erased before anything is read: from then on no
 * value of a request naming them is stored, and those stored before are all in the index
 * that the removal reads.
 */
async function findAndErase(
  ctx: AuditContext,
  redis: Redis,
  plan: ErasePlan,
  digest: string,
  done: Done,
): Promise<{ before: SubjectData; after: SubjectData; ranges: RetainedRange[] }> {
  const prefix = ctx.config.TOPIC_PREFIX;
  const unmark = plan.confirm ? await markErasing(redis, prefix, digest) : undefined;
  try {
    const { ranges, requestIds } = await findRetained(ctx, plan.subject);
    done.ranges = ranges;
    const found = { digest, requestIds };
    if (!plan.confirm) {
      const before = (done.before = await findSubjectData(redis, prefix, found));
      return { before, after: before, ranges };
    }
    const before = (done.before = done.erased = await eraseSubjectData(redis, prefix, found));
    return { before, after: await findSubjectData(redis, prefix, found), ranges };
  } finally {
    await unmark?.().catch((error: unknown) => {
      ctx.warn(`the erase marker could not be removed; it lapses by itself (${messageOf(error)})`);
    });
  }
}

function now(): string {
  return new Date().toISOString();
}

const NOTHING: SubjectData = { paidOutcomes: [], pendingSearches: [] };

function resultEvent(
  heading: Pick<EraseAuditEvent, 'actor' | 'dryRun' | 'target'>,
  done: Done,
  incomplete: boolean,
): EraseAuditEvent {
  const ranges = done.ranges ?? [];
  return eraseAuditEventSchema.parse({
    action: 'erase',
    ...heading,
    found: counts(done.before ?? NOTHING),
    erased: counts(done.erased ?? NOTHING),
    retained: { partitions: ranges.length, messages: ranges.reduce((n, r) => n + r.messages, 0) },
    ...(incomplete ? { incomplete: true } : {}),
    at: now(),
  });
}

function counts(data: SubjectData): { paidOutcomes: number; pendingSearches: number } {
  return { paidOutcomes: data.paidOutcomes.length, pendingSearches: data.pendingSearches.length };
}

/**
 * The run's two events on `<prefix>.audit`: plain JSON, key = the action, as the console
 * writes its events. `started` fails with AUDIT_UNWRITABLE, and then nothing else is done.
 */
function eraseAuditLog(ctx: AuditContext): {
  started(event: EraseStartedAuditEvent): Promise<void>;
  finished(event: EraseAuditEvent): Promise<void>;
  readonly wasStarted: boolean;
  close(): Promise<void>;
} {
  const topic = topicNames(ctx.config.TOPIC_PREFIX).audit;
  const producer = idempotentProducer(ctx.clients.kafka);
  let connected = false;
  let started = false;
  const send = async (event: EraseStartedAuditEvent | EraseAuditEvent): Promise<void> => {
    if (!connected) {
      await producer.connect();
      connected = true;
    }
    await producer.send({
      topic,
      messages: [
        { key: event.action, value: JSON.stringify(event), headers: { 'content-type': 'application/json' } },
      ],
    });
  };
  return {
    async started(event) {
      try {
        await send(event);
      } catch (error) {
        throw new AuditError(
          'AUDIT_UNWRITABLE',
          `cannot write the erase-started event to ${topic} (${messageOf(error)}): nothing was read or erased`,
          { cause: error },
        );
      }
      started = true;
    },
    async finished(event) {
      try {
        await send(event);
      } catch (error) {
        const what = event.dryRun
          ? 'the dry run'
          : `the erase (${event.erased.paidOutcomes} paid outcome(s) and ${event.erased.pendingSearches} pending search(es) removed)`;
        throw new AuditError(
          'AUDIT_UNWRITABLE',
          `${what} ended, but its erase event could not be written to ${topic} (${messageOf(error)}); its erase-started event is there`,
          { cause: error },
        );
      }
    },
    get wasStarted() {
      return started;
    },
    async close() {
      if (connected) await producer.disconnect().catch(() => undefined);
    },
  };
}

function messageOf(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split('\n')[0] ?? text;
}

/** The summary line: counts and the masked identifier only. */
export function describeErase(plan: ErasePlan, s: EraseSummary): string {
  const who = `${plan.subject.kind} ${maskSubject(plan.subject)}`;
  const found = `${s.before.paidOutcomes.length} paid outcome(s) and ${s.before.pendingSearches.length} pending search(es)`;
  const kafka = `Kafka holds ${s.event.retained.messages} message(s) of it in ${s.ranges.length} partition(s) within retention (listed)`;
  if (!plan.confirm)
    return `dry run for ${who}: ${found} would be erased from Redis; ${kafka}; --confirm to erase`;
  const left = `${s.after.paidOutcomes.length} and ${s.after.pendingSearches.length} left`;
  return `erased for ${who}: ${found} removed from Redis (${left}); ${kafka}`;
}
