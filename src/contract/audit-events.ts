import { z } from 'zod';
import { ERROR_KINDS } from '../errors.js';
import { OPERATIONS } from './operations.js';

/**
 * The operator console's audit events on `<prefix>.audit`: every reveal and redrive, by role,
 * what, when and how many. Plain JSON (not framed by the registry), key = the action. The
 * console builds each event through this schema (src/console/audit-log.ts), and
 * schemas/audit.json and the AsyncAPI channel are generated from it, so the three cannot drift.
 *
 * Never personal data: dead letters are named by their coordinates, a key filter only by its
 * presence. Strict objects make a field added to the event without a place here an error
 * instead of a silent leak.
 */

const isoDateTime = z.iso.datetime({ offset: true });

export const CONSOLE_ROLES = ['read-only', 'operator'] as const;
const role = z.enum(CONSOLE_ROLES).describe('The role of the session that acted; tokens are never named');

const revealTarget = z.strictObject({
  deadLetter: z
    .string()
    .regex(/^[^/]+\/\d+\/\d+$/)
    .describe('`<errors topic>/<partition>/<offset>` of the dead letter shown unmasked'),
});

const redriveTarget = z.strictObject({
  from: isoDateTime.describe('Start of the time window read (included)'),
  to: isoDateTime.describe('End of the time window read (excluded), fixed when the dry run was confirmed'),
  operation: z.enum(OPERATIONS).optional(),
  kind: z.enum(ERROR_KINDS).optional().describe('The error kind filtered on'),
  requestId: z.string().min(1).max(128).optional(),
  keyFilter: z
    .literal(true)
    .optional()
    .describe('Present when a key narrowed the choice; the key is not written'),
  deadLetters: z
    .array(z.string().regex(/^\d+\/\d+$/))
    .optional()
    .describe('`<partition>/<offset>` of the errors topic, when dead letters were ticked one by one'),
});

const at = isoDateTime.describe('When the action was taken');

export const consoleAuditEventSchema = z.discriminatedUnion('action', [
  z.strictObject({
    action: z.literal('reveal'),
    role,
    target: revealTarget,
    count: z.literal(1),
    at,
  }),
  z
    .strictObject({
      action: z.literal('redrive-started'),
      role,
      target: redriveTarget,
      at,
    })
    .describe(
      'Written before a redrive sends its first request; the console starts none without it. Its `redrive` event follows when the run ends',
    ),
  z.strictObject({
    action: z.literal('redrive'),
    role,
    target: redriveTarget,
    count: z.number().int().min(0).describe('Requests republished (an already-paid one reuses its outcome)'),
    at,
  }),
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

/**
 * The `erase` command's event (a data subject's request): who ran it, whether it was a dry
 * run, what it found and removed in Redis, and how much Kafka still holds within retention.
 * Never the identifier: the subject is named by its keyed hash (the subject index's HMAC).
 */
export const eraseAuditEventSchema = z.strictObject({
  action: z.literal('erase'),
  actor: z
    .string()
    .min(1)
    .max(128)
    .describe('Who ran the command: its --actor flag, else the operating system user name'),
  dryRun: z.boolean().describe('True when nothing was removed (the command without --confirm)'),
  target: z.strictObject({
    kind: z.enum(['tax-id', 'plate']),
    subject: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .describe('HMAC-SHA256 of the identifier under REDIS_INDEX_KEY; never the identifier'),
  }),
  found: redisCounts.describe('What Redis held for the subject before the command'),
  erased: redisCounts.describe('What the command removed (zero on a dry run)'),
  retained: z
    .strictObject({ partitions: count, messages: count })
    .describe("Kafka partitions and messages still holding the subject's data within retention"),
  at,
});

export type EraseAuditEvent = z.infer<typeof eraseAuditEventSchema>;

/** Every event on `<prefix>.audit`: the console's and the erase command's. */
export const auditEventSchema = z.union([consoleAuditEventSchema, eraseAuditEventSchema]);
export const AUDIT_ACTIONS = [...CONSOLE_AUDIT_ACTIONS, 'erase'] as const;
