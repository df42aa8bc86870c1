import { Redis } from 'ioredis';
import { idempotentProducer } from '../kafka/client.js';
import type { DataSubject } from '../at-rest/subjects.js';
import { loadEraseSettings } from '../config-at-rest.js';
import { eraseAuditEventSchema, type EraseAuditEvent } from '../contract/audit-events.js';
import { topicNames } from '../contract/operations.js';
import { eraseSubjectData, findSubjectData, type SubjectData } from './erase-redis.js';
import { maskSubject, parseSubject, retainedRanges, type RetainedRange } from './erase-ranges.js';
import { AuditError } from './errors.js';
import type { LineSink } from './jsonl.js';
import type { AuditContext } from './scan.js';

/**
 * `erase --tax-id … | --plate …`: a data subject's request. Finds their paid outcomes and
 * pending searches in Redis by the keyed hash of the identifier, lists the Kafka partitions and
 * offset ranges that still hold their messages within retention, and, with --confirm only,
 * removes the Redis values. Every run (dry or not) writes an `erase` audit event naming the
 * actor, never the identifier; the output masks it.
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

export async function runErase(
  ctx: AuditContext,
  plan: ErasePlan,
  env: Readonly<Record<string, string | undefined>>,
  sink: LineSink,
): Promise<EraseSummary> {
  const settings = loadEraseSettings(env);
  const digest = settings.index.digest(plan.subject);
  const prefix = ctx.config.TOPIC_PREFIX;
  const redis = new Redis(settings.redisUrl, {
    ...(settings.redisPassword === undefined ? {} : { password: settings.redisPassword }),
    lazyConnect: true,
    connectTimeout: ctx.config.AUDIT_CONNECT_TIMEOUT_MS,
    maxRetriesPerRequest: 1,
    retryStrategy: () => null,
  });
  try {
    await redis.connect().catch((error: unknown) => {
      throw new AuditError('UNREACHABLE', `cannot reach Redis (REDIS_URL): ${String(error)}`, {
        cause: error,
      });
    });
    const before = await findSubjectData(redis, prefix, digest);
    const ranges = await retainedRanges(ctx, plan.subject);
    if (plan.confirm) await eraseSubjectData(redis, prefix, digest, before);
    const after = plan.confirm ? await findSubjectData(redis, prefix, digest) : before;
    for (const range of ranges) await sink.write({ retained: range });
    const event = eraseAuditEventSchema.parse({
      action: 'erase',
      actor: plan.actor,
      dryRun: !plan.confirm,
      target: { kind: plan.subject.kind, subject: digest },
      found: counts(before),
      erased: plan.confirm ? counts(before) : { paidOutcomes: 0, pendingSearches: 0 },
      retained: { partitions: ranges.length, messages: ranges.reduce((n, r) => n + r.messages, 0) },
      at: new Date().toISOString(),
    });
    await writeAuditEvent(ctx, event);
    return { before, after, ranges, event };
  } finally {
    redis.disconnect();
  }
}

function counts(data: SubjectData): { paidOutcomes: number; pendingSearches: number } {
  return { paidOutcomes: data.paidOutcomes.length, pendingSearches: data.pendingSearches.length };
}

/** Plain JSON on `<prefix>.audit`, key = the action, as the console writes its events. */
async function writeAuditEvent(ctx: AuditContext, event: EraseAuditEvent): Promise<void> {
  const producer = idempotentProducer(ctx.clients.kafka);
  await producer.connect();
  try {
    await producer.send({
      topic: topicNames(ctx.config.TOPIC_PREFIX).audit,
      messages: [
        { key: event.action, value: JSON.stringify(event), headers: { 'content-type': 'application/json' } },
      ],
    });
  } finally {
    await producer.disconnect();
  }
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
