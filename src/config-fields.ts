import { z } from 'zod';
import { OPERATIONS } from './contract/operations.js';

/** The field types config.ts builds its schema from. */

/** A blank setting counts as not given: its default applies (z.coerce would read it as 0). */
const blankAsUnset = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (v === '' ? undefined : v), schema);
/** A number setting: `schema` when given, else `fallback`. */
export const numberOr = (schema: z.ZodType<number>, fallback: number) =>
  blankAsUnset(schema.default(fallback));
export const int = (min: number, fallback: number) => numberOr(z.coerce.number().int().min(min), fallback);
/** A TCP port; 0 lets the system choose one. */
export const port = (fallback: number) => numberOr(z.coerce.number().int().min(0).max(65_535), fallback);
/** An address to listen on; blank: the default (never '', which Node reads as every address). */
export const host = (fallback: string) => blankAsUnset(z.string().default(fallback));
/**
 * A topic's retention: finite, so that the personal data a topic holds goes within a known time
 * (the data map in docs/data-map.md). A topic that must keep everything is set by hand.
 */
export const finiteRetentionMs = (fallback: number) =>
  numberOr(
    z.coerce
      .number()
      .int()
      .min(
        1,
        'must be a positive number of milliseconds (topics the service creates keep personal data for a known time; -1 is no longer accepted)',
      ),
    fallback,
  );
export const bool = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0'])
    .default(fallback ? 'true' : 'false')
    .transform((v) => v === 'true' || v === '1');
const url = z.url({ protocol: /^https?$/ });
/** `schema` when the setting is given; a blank one counts as not given. */
export const unlessBlank = <T extends z.ZodType>(schema: T) => blankAsUnset(schema.optional());
/** A whole number when given. */
export const optionalInt = (min: number) => unlessBlank(z.coerce.number().int().min(min));
export const optionalUrl = unlessBlank(url);

/** The fewest distinct characters a token or a secret may have: sixteen repeated characters are no secret. */
export const MIN_DISTINCT_SECRET_CHARACTERS = 6;

/** A token or shared secret: at least 16 characters, at least MIN_DISTINCT_SECRET_CHARACTERS of them distinct. */
export const strongSecret = z
  .string()
  .min(16, 'must be at least 16 characters')
  .refine(
    (value) => new Set(value).size >= MIN_DISTINCT_SECRET_CHARACTERS,
    `is weak: needs at least ${MIN_DISTINCT_SECRET_CHARACTERS} distinct characters (make one with: openssl rand -hex 24)`,
  );

export const consoleToken = unlessBlank(strongSecret);

const operationLimit = z.strictObject({
  ratePerSecond: z.number().positive().optional(),
  maxConcurrent: z.number().int().min(1).optional(),
  spendCapPerHour: z.number().int().min(1).optional(),
});

export const limitsJson = z
  .string()
  .default('{}')
  .transform((text, ctx) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      ctx.addIssue({ code: 'custom', message: 'is not valid JSON' });
      return z.NEVER;
    }
  })
  .pipe(z.partialRecord(z.enum(OPERATIONS), operationLimit));
