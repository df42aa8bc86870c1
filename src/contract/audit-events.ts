import { z } from 'zod';
import { ERROR_KINDS } from '../errors.js';
import { RESULT_STATUSES, VEHICLE_SEARCH_STATUSES } from './envelopes.js';
import { OPERATIONS } from './operations.js';

/**
 * The audit events on `<prefix>.audit`: every reveal, dead-letter search by key and redrive,
 * from the operator console or the `redrive` command, and every read of personal data by the
 * `replay` and `redrive --show-keys` commands, by whom (the console token's name or
 * the command's user, never a token), in which role, what, when and how many. Plain JSON (not framed by the registry), key = the action. The
 * console builds each event through this schema (src/audit/audit-log.ts), and
 * schemas/audit.json and the AsyncAPI channel are generated from it, so the three cannot drift.
 *
 * Never personal data: dead letters are named by their coordinates, a key filter only by its
 * presence. Strict objects make a field added to the event without a place here an error
 * instead of a silent leak.
 */

const isoDateTime = z.iso.datetime({ offset: true });

export const CONSOLE_ROLES = ['read-only', 'operator'] as const;
/** The console's roles, and `cli` for the `redrive` command. */
export const AUDIT_ROLES = [...CONSOLE_ROLES, 'cli'] as const;
const role = z
  .enum(AUDIT_ROLES)
  .describe('The role of the console session that acted, or `cli` for the redrive command');

/** A console token's name (CONSOLE_TOKENS_FILE), or the user of the command. */
export const ACTOR_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;
const actor = z
  .string()
  .regex(ACTOR_PATTERN)
  .describe(
    "Who acted: the console token's name (`shared-read-only` / `shared-operator` for CONSOLE_TOKEN / CONSOLE_OPERATOR_TOKEN), or the command's --actor (else AUDIT_ACTOR, else its user); never a token",
  );

const revealTarget = z.strictObject({
  deadLetter: z
    .string()
    .regex(/^[^/]+\/\d+\/\d+$/)
    .describe('`<errors topic>/<partition>/<offset>` of the dead letter shown unmasked'),
});

const offsetRange = z.strictObject({
  partition: z.number().int().min(0).optional(),
  fromOffset: z.number().int().min(0).optional(),
  toOffset: z.number().int().min(0).optional(),
});

const redriveTarget = z.strictObject({
  from: isoDateTime.optional().describe('Start of the time window read (included); absent: from the start'),
  to: isoDateTime
    .optional()
    .describe(
      'End of the time window read (excluded), fixed when the dry run was confirmed; absent: the end',
    ),
  offsets: offsetRange.optional().describe('The offset range read instead of a time window (the command)'),
  operation: z.enum(OPERATIONS).optional(),
  kind: z.enum(ERROR_KINDS).optional().describe('The error kind filtered on'),
  requestId: z.string().min(1).max(128).optional(),
  keyFilter: z
    .literal(true)
    .optional()
    .describe('Present when a key narrowed the choice; the key is not written'),
  operations: z.array(z.enum(OPERATIONS)).optional().describe('The operations filtered on, when several'),
  kinds: z.array(z.enum(ERROR_KINDS)).optional().describe('The error kinds filtered on, when several'),
  requestIds: z
    .array(z.string().min(1).max(128))
    .optional()
    .describe('The requestIds filtered on, when several'),
  deadLetters: z
    .array(z.string().regex(/^\d+\/\d+$/))
    .optional()
    .describe('`<partition>/<offset>` of the errors topic, when dead letters were ticked one by one'),
});

const at = isoDateTime.describe('When the action was taken');

const cli = z.literal('cli').describe('The commands act in the role `cli`');
const topicName = z.string().regex(/^[A-Za-z0-9._-]{1,249}$/);

/** What a `replay` read: its topics, window and filters, never a key or a value. */
const replayTarget = redriveTarget.omit({ deadLetters: true }).extend({
  topics: z.array(topicName).min(1).describe('The topics read, by full name'),
  statuses: z
    .array(z.enum([...RESULT_STATUSES, ...VEHICLE_SEARCH_STATUSES]))
    .optional()
    .describe('The statuses filtered on'),
  output: z
    .enum(['stdout', 'file', 'topic'])
    .describe('Where the messages went: printed, written to a file (--out), republished (--to-topic)'),
  toTopic: topicName.optional().describe('The topic republished to (--to-topic)'),
});

const windowMessages = z
  .number()
  .int()
  .min(0)
  .describe('Offsets the window spans when the read starts: at most this many messages are shown');

export const consoleAuditEventSchema = z.discriminatedUnion('action', [
  z.strictObject({
    action: z.literal('reveal'),
    actor,
    role,
    target: revealTarget,
    count: z.literal(1),
    at,
  }),
  z
    .strictObject({
      action: z.literal('redrive-started'),
      actor,
      role,
      target: redriveTarget,
      at,
    })
    .describe(
      'Written before a redrive sends its first request; the console starts none without it. Its `redrive` event follows when the run ends',
    ),
  z.strictObject({
    action: z.literal('redrive'),
    actor,
    role,
    target: redriveTarget,
    count: z.number().int().min(0).describe('Requests republished (an already-paid one reuses its outcome)'),
    at,
  }),
  z
    .strictObject({
      action: z.literal('dead-letter-search'),
      actor,
      role,
      target: redriveTarget
        .pick({ from: true, to: true, operation: true, kind: true, requestId: true })
        .extend({
          keyFilter: z.literal(true).describe('A key narrowed the search; the key is not written'),
        }),
      count: z.number().int().min(0).describe('Dead letters the search found'),
      at,
    })
    .describe('A dead-letter search by message key (a tax id or a plate: itself personal data)'),
  z
    .strictObject({
      action: z.literal('replay-started'),
      actor,
      role: cli,
      target: replayTarget,
      messages: windowMessages,
      at,
    })
    .describe(
      'Written by `replay` before it reads a message of a topic that may hold personal data (every topic but this one); it shows nothing without it. Its `replay` event follows when the read ends',
    ),
  z
    .strictObject({
      action: z.literal('replay'),
      actor,
      role: cli,
      target: replayTarget,
      count: z.number().int().min(0).describe('Messages printed, written or republished'),
      at,
    })
    .describe('Written when a replay that wrote `replay-started` ends, completed or not'),
  z
    .strictObject({
      action: z.literal('redrive-keys-shown'),
      actor,
      role: cli,
      dryRun: z.boolean().describe('True for `redrive --dry-run --show-keys`, which publishes nothing'),
      target: redriveTarget.omit({ deadLetters: true }),
      messages: windowMessages,
      at,
    })
    .describe(
      'Written by `redrive --show-keys` before it reads a dead letter: its lines show message keys (tax ids, plates) whole; it shows nothing without it',
    ),
]);

export type ConsoleAuditEvent = z.infer<typeof consoleAuditEventSchema>;
/** Every action, each event's key on the audit topic. */
export const CONSOLE_AUDIT_ACTIONS = consoleAuditEventSchema.options.map((o) => o.shape.action.value);
export type ConsoleAuditAction = ConsoleAuditEvent['action'];

const count = z.number().int().min(0);
const redisCounts = z.strictObject({
  paidOutcomes: count.describe('Paid outcomes (deduplication) in Redis'),
  pendingSearches: count.describe('Pending vehicle searches in Redis'),
});

const eraseActor = actor.describe(
  'Who ran the command: its --actor flag, else AUDIT_ACTOR, else the operating system user name',
);
const eraseDryRun = z.boolean().describe('True when nothing was removed (the command without --confirm)');
const eraseTarget = z.strictObject({
  kind: z.enum(['tax-id', 'plate']),
  subject: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .describe('HMAC-SHA256 of the identifier under REDIS_INDEX_KEY; never the identifier'),
});

/**
 * The `erase` command's intent, written before it reads or removes anything: a run whose
 * intent cannot be written reads and removes nothing. Its `erase` event follows when the run
 * ends.
 */
export const eraseStartedAuditEventSchema = z
  .strictObject({
    action: z.literal('erase-started'),
    actor: eraseActor,
    dryRun: eraseDryRun,
    target: eraseTarget,
    at,
  })
  .describe(
    'Written before the erase command reads or removes anything; it does neither without it. Its `erase` event follows when the run ends',
  );

export type EraseStartedAuditEvent = z.infer<typeof eraseStartedAuditEventSchema>;

/**
 * The `erase` command's event (a data subject's request): who ran it, whether it was a dry
 * run, what it found and removed in Redis, and how much Kafka still holds within retention.
 * Never the identifier: the subject is named by its keyed hash (the subject index's HMAC).
 */
export const eraseAuditEventSchema = z.strictObject({
  action: z.literal('erase'),
  actor: eraseActor,
  dryRun: eraseDryRun,
  target: eraseTarget,
  found: redisCounts.describe('What Redis held for the subject before the command'),
  erased: redisCounts.describe('What the command removed (zero on a dry run)'),
  retained: z
    .strictObject({ partitions: count, messages: count })
    .describe("Kafka partitions and messages still holding the subject's data within retention"),
  incomplete: z
    .literal(true)
    .optional()
    .describe(
      'Present when the run stopped before it ended (an error, an interrupt): the counts are what it had found and removed by then',
    ),
  at,
});

export type EraseAuditEvent = z.infer<typeof eraseAuditEventSchema>;

/** Every event on `<prefix>.audit`: the console's and the erase command's. */
export const auditEventSchema = z.union([
  consoleAuditEventSchema,
  eraseStartedAuditEventSchema,
  eraseAuditEventSchema,
]);
export const AUDIT_ACTIONS = [...CONSOLE_AUDIT_ACTIONS, 'erase-started', 'erase'] as const;
