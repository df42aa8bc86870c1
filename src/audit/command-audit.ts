import { userInfo } from 'node:os';
import { bool } from '../config-fields.js';
import { isSharedName } from '../config-console.js';
import { ACTOR_PATTERN, type ConsoleAuditEvent } from '../contract/audit-events.js';
import { RESULT_STATUSES, VEHICLE_SEARCH_STATUSES } from '../contract/envelopes.js';
import { isOperation } from '../contract/operations.js';
import { ConfigError, isErrorKind } from '../errors.js';
import { createLogger } from '../observability/logger.js';
import { auditTopic, kafkaAuditLog } from './audit-log.js';
import { AuditError, badArguments } from './errors.js';
import type { FilterCriteria } from './filters.js';
import type { ReplayAudit } from './replay.js';
import { namesOf, type AuditContext } from './scan.js';
import { mayHoldPersonalData } from './topics.js';
import type { Window } from './window.js';

/**
 * How the commands audit what they do: who runs them (the actor), what they chose (a target
 * without personal data), and their events on `<prefix>.audit`, as the console writes its own
 * (role `cli`). An event written before a command acts fails closed: when it cannot be
 * written, the command shows nothing and sends nothing.
 */

/**
 * --actor, else AUDIT_ACTOR, else the user running the command. AUDIT_REQUIRE_NAMED_ACTOR=true
 * takes only a name given (--actor or AUDIT_ACTOR), never the operating system's user (in the
 * image, `node`: nobody in particular) nor a shared console name, as
 * CONSOLE_REQUIRE_NAMED_TOKENS does for the console.
 */
export function actorOf(flags: { actor?: string }, env: NodeJS.ProcessEnv): string {
  const given = flags.actor ?? env.AUDIT_ACTOR;
  const required = bool(false).safeParse(blankAsUnset(env.AUDIT_REQUIRE_NAMED_ACTOR));
  if (!required.success) throw new ConfigError('AUDIT_REQUIRE_NAMED_ACTOR', 'must be true or false');
  if (required.data && (given === undefined || isSharedName(given))) {
    throw badArguments(
      given === undefined
        ? 'named actors are required (AUDIT_REQUIRE_NAMED_ACTOR): give --actor <your name>'
        : `named actors are required (AUDIT_REQUIRE_NAMED_ACTOR): ${given} names nobody; give --actor <your name>`,
    );
  }
  const actor = given ?? safeUserName();
  if (!ACTOR_PATTERN.test(actor)) {
    throw badArguments(
      given === undefined
        ? `the user name cannot name the actor of the audit event: give --actor <name>`
        : `--actor / AUDIT_ACTOR: letters, digits, '.', '_', '@' or '-' (64 at most)`,
    );
  }
  return actor;
}

function blankAsUnset(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}

function safeUserName(): string {
  try {
    return userInfo().username;
  } catch {
    return '';
  }
}

export type RedriveTarget = Extract<ConsoleAuditEvent, { action: 'redrive' }>['target'];
/** What a window and filters chose, as a redrive's target says it (replay's adds its topics). */
export type SelectionTarget = Omit<RedriveTarget, 'deadLetters'>;

/** What the window and filters chose, without personal data: a key filter is said to be there, not what it was. */
export function describeSelection(window: Window, filter: FilterCriteria): SelectionTarget {
  const one = <T>(values: readonly T[] | undefined): T | undefined =>
    values?.length === 1 ? values[0] : undefined;
  const several = <T>(values: readonly T[] | undefined): T[] | undefined =>
    values !== undefined && values.length > 1 ? [...values] : undefined;
  const operations = filter.operations?.filter(isOperation);
  const kinds = filter.errorKinds?.filter(isErrorKind);
  const target: SelectionTarget = {};
  if (window.kind === 'time') {
    if (window.from) target.from = window.from.toISOString();
    if (window.to) target.to = window.to.toISOString();
  } else {
    target.offsets = {
      ...(window.partition === undefined ? {} : { partition: window.partition }),
      ...(window.fromOffset === undefined ? {} : { fromOffset: window.fromOffset }),
      ...(window.toOffset === undefined ? {} : { toOffset: window.toOffset }),
    };
  }
  const operation = one(operations);
  if (operation !== undefined) target.operation = operation;
  const kind = one(kinds);
  if (kind !== undefined) target.kind = kind;
  const requestId = one(filter.requestIds);
  if (requestId !== undefined) target.requestId = requestId;
  const manyOperations = several(operations);
  if (manyOperations) target.operations = manyOperations;
  const manyKinds = several(kinds);
  if (manyKinds) target.kinds = manyKinds;
  const manyRequestIds = several(filter.requestIds);
  if (manyRequestIds) target.requestIds = manyRequestIds;
  if ((filter.keys ?? []).length > 0) target.keyFilter = true;
  return target;
}

/** A command's audit events, written on one producer opened at the first. */
export interface CommandAudit {
  /**
   * An event written before the command acts (shows a message, sends a request): throws
   * AUDIT_UNWRITABLE when it cannot be written, so that the command stops there.
   */
  before(event: ConsoleAuditEvent): Promise<void>;
  /**
   * The event that closes what `before` began, written only when a `before` event was (what
   * was done is done: a failure is a warning); then the producer closes. Called once, last.
   */
  after(event: ConsoleAuditEvent | undefined): Promise<void>;
}

export function commandAudit(ctx: AuditContext): CommandAudit {
  const topic = auditTopic(ctx.config.TOPIC_PREFIX);
  const log = kafkaAuditLog(ctx.clients.kafka, ctx.config.TOPIC_PREFIX, createLogger({ level: 'silent' }));
  let began = false;
  return {
    async before(event) {
      try {
        // The producer never creates a topic: one missing would only time out, later.
        const existing = await ctx.clients.admin.listTopics();
        if (!existing.includes(topic)) throw new Error('the topic does not exist');
        await log.write(event);
      } catch (error) {
        throw new AuditError(
          'AUDIT_UNWRITABLE',
          `the audit event could not be written to ${topic} (${reasonOf(error)}): nothing was shown or sent`,
          { cause: error },
        );
      }
      began = true;
    },
    async after(event) {
      try {
        if (began && event) await log.write(event);
      } catch (error) {
        ctx.warn(`the ${event?.action ?? ''} audit event could not be written (${reasonOf(error)})`);
      } finally {
        await log.close().catch(() => undefined);
      }
    },
  };
}

function reasonOf(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split('\n')[0] ?? text;
}

type ReplayTarget = Extract<ConsoleAuditEvent, { action: 'replay' }>['target'];
type ReplayChoice = Omit<ReplayTarget, 'topics'>;

const STATUSES: readonly string[] = [...RESULT_STATUSES, ...VEHICLE_SEARCH_STATUSES];
const isStatus = (value: string): value is NonNullable<ReplayTarget['statuses']>[number] =>
  STATUSES.includes(value);

/** What a replay chose and where its output goes; its topics are known once it starts. */
export function describeReplay(
  window: Window,
  filter: FilterCriteria,
  where: { toTopic?: string | undefined; out?: string | undefined },
): ReplayChoice {
  const { toTopic, out } = where;
  return {
    ...describeSelection(window, filter),
    ...(filter.statuses === undefined ? {} : { statuses: filter.statuses.filter(isStatus) }),
    output: toTopic !== undefined ? 'topic' : out !== undefined ? 'file' : 'stdout',
    ...(toTopic === undefined ? {} : { toTopic }),
  };
}

/**
 * A replay's two audit events, when what it reads may hold personal data (any topic but the
 * audit topic): `replay-started` before the first message is read (nothing is shown without
 * it), `replay` with the count written when it ends.
 */
export function replayAudit(ctx: AuditContext, actor: string, chosen: ReplayChoice): ReplayAudit {
  const audit = commandAudit(ctx);
  let target: ReplayTarget | undefined;
  const now = (): string => new Date().toISOString();
  return {
    async started({ topics, spanned }) {
      if (!mayHoldPersonalData(namesOf(ctx), topics)) return;
      target = { ...chosen, topics: [...topics] };
      await audit.before({
        action: 'replay-started',
        actor,
        role: 'cli',
        target,
        messages: spanned,
        at: now(),
      });
    },
    finished: (count) =>
      audit.after(target && { action: 'replay', actor, role: 'cli', target, count, at: now() }),
  };
}
