import { z } from 'zod';

/**
 * zod building blocks for the params schemas of src/contract/params.ts. Messages never echo
 * the value of a personal field (tax ids, names, images): they name the member and the rule.
 */

type ErrorFunction = (issue: { input?: unknown }) => string;

/** "is required" when absent, otherwise "must be <what>". */
export function requiredOr(what: string): ErrorFunction {
  return (issue) => (issue.input === undefined ? 'is required' : `must be ${what}`);
}

export function text(): z.ZodString {
  return z.string({ error: requiredOr('a string') });
}

/** A trimmed, non-empty string of at most `max` characters. */
export function nonEmptyText(max = 500): z.ZodPipe<z.ZodString, z.ZodTransform<string, string>> {
  return text()
    .refine((value) => value.trim().length > 0, 'must not be empty')
    .refine((value) => value.trim().length <= max, `must be at most ${max} characters`)
    .transform((value) => value.trim());
}

/** A document field: the check names the problem (see src/vendor-api/documents), then normalises. */
export function documentField(
  problem: (value: string) => string | undefined,
  normalize: (value: string) => string,
): z.ZodPipe<z.ZodString, z.ZodTransform<string, string>> {
  return text()
    .superRefine((value, ctx) => {
      const found = problem(value);
      if (found !== undefined) ctx.addIssue({ code: 'custom', message: found });
    })
    .transform(normalize);
}

export function checkedText(check: (value: string) => boolean, message: string): z.ZodString {
  return text().refine(check, message);
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export function isBase64(value: string): boolean {
  return value.length > 0 && BASE64.test(value);
}

/** Standard base64 (RFC 4648 section 4), padded, no line breaks, no `data:` prefix. */
export function base64Text(): z.ZodString {
  return checkedText(
    isBase64,
    'must be non-empty standard base64 (A-Z a-z 0-9 + /, padded, no line breaks or data: prefix)',
  );
}

export function isHttpUrl(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
}

export function httpUrl(): z.ZodString {
  return checkedText(isHttpUrl, 'must be an absolute http or https URL');
}

/** A closed list of values; the message shows a few allowed values (they are not personal). */
export function oneOf<const T extends readonly [string, ...string[]]>(
  values: T,
  label: string,
): z.ZodEnum<{ [K in T[number]]: K }> {
  const sample = values.slice(0, 3).join(', ');
  return z.enum(values, {
    error: (issue) =>
      issue.input === undefined
        ? 'is required'
        : `must be one of the ${label} (${values.length > 3 ? `e.g. ${sample}` : values.join(', ')}); got ${describe(issue.input)}`,
  });
}

/**
 * One value or a non-empty list of values, always a list after parsing. The list branch comes
 * first so that an item's message keeps its index (`courts[1]: ...`).
 */
export function oneOrMany<T extends z.ZodType<string, string>>(item: T) {
  return z
    .union([
      z
        .array(item, { error: requiredOr('a string or a list of strings') })
        .min(1, 'must list at least one value'),
      z.string().pipe(item),
    ])
    .transform((value): string[] => (typeof value === 'string' ? [value] : value));
}

/** The keys of `value` that are present (not undefined), in `keys` order. */
export function presentKeys(value: object, keys: readonly string[]): string[] {
  const record = value as Record<string, unknown>;
  return keys.filter((key) => record[key] !== undefined);
}

export function exactlyOneMessage(keys: readonly string[], present: readonly string[]): string {
  const got = present.length === 0 ? 'got none' : `got ${present.length}: ${present.join(', ')}`;
  return `exactly one of ${keys.join(', ')} is required; ${got}`;
}

/**
 * A strict object (unknown keys rejected, so typos are caught before a paid call) whose
 * unknown-key message lists the allowed keys and suggests a near spelling.
 */
export function strictShape<S extends z.ZodRawShape>(shape: S): z.ZodObject<S, z.core.$strict> {
  const allowed = Object.keys(shape);
  return z.strictObject(shape, {
    error: (issue) => {
      if (issue.code === 'unrecognized_keys') return unknownKeysMessage(issue.keys, allowed);
      return issue.input === undefined ? 'is required' : 'must be an object';
    },
  });
}

function unknownKeysMessage(keys: readonly string[], allowed: readonly string[]): string {
  const described = keys.map((key) => {
    const near = allowed.find((candidate) => candidate.toLowerCase() === key.toLowerCase());
    return near === undefined ? `"${key}"` : `"${key}" (did you mean "${near}"?)`;
  });
  return `unknown ${keys.length === 1 ? 'member' : 'members'} ${described.join(', ')}; allowed: ${allowed.join(', ')}`;
}

/**
 * What the value was, never the value: a reason goes to the errors topic, the logs and the
 * read-only console, and a value in the wrong field may be a name or a tax id (issue 50: a
 * court list holding a person's name and CPF came back quoted in the reason).
 */
function describe(input: unknown): string {
  if (typeof input !== 'string') return typeof input;
  return `a text of ${input.length} character${input.length === 1 ? '' : 's'}`;
}
