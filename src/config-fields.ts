import { z } from 'zod';
import { OPERATIONS } from './contract/operations.js';

/** The field types config.ts builds its schema from. */

export const int = (min: number, fallback: number) => z.coerce.number().int().min(min).default(fallback);
export const bool = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0'])
    .default(fallback ? 'true' : 'false')
    .transform((v) => v === 'true' || v === '1');
const url = z.url({ protocol: /^https?$/ });
/** A whole number when given; blank counts as not given. */
export const optionalInt = (min: number) =>
  z.preprocess((v) => (v === '' ? undefined : v), z.coerce.number().int().min(min).optional());
export const optionalUrl = z.preprocess((v) => (v === '' ? undefined : v), url.optional());

export const consoleToken = z.preprocess(
  (v) => (v === '' ? undefined : v),
  z.string().min(16, 'must be at least 16 characters').optional(),
);

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
