import { z } from 'zod';

/**
 * Shared pieces of the response schemas. Every object is loose (`z.looseObject`): members
 * the spec does not list are kept, because auditors read the vendor's full answer. Typed
 * members are checked when present; "a value shown as null in a sample may also carry a
 * string or number" (vendor-api.md, "Common response envelope"), hence `scalar`.
 */
export const str = z.string().nullish();
export const num = z.number().nullish();
export const bool = z.boolean().nullish();
export const scalar = z.union([z.string(), z.number(), z.boolean()]).nullish();
export const strList = z.array(z.string()).nullish();

export const metadataSchema = z.looseObject({ timeSpent: z.number().optional() });

/** The common envelope: `id`, `version`, `data`, `metadata` ("Common response envelope"). */
export function envelope<T extends z.ZodType>(data: T) {
  return z.looseObject({
    id: z.string().optional(),
    // Not compared with the path segment: they differ by design (vendor-api.md, "Versioning").
    version: z.string().optional(),
    data,
    metadata: metadataSchema.optional(),
  });
}
