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
