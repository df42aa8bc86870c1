import { z } from 'zod';
import { ERROR_KINDS } from '../errors.js';
import { OPERATIONS } from './operations.js';

/**
 * The envelopes of shared/contract.md ("Messages"). They are the source of truth: the JSON
 * Schemas in schemas/ are generated from them (scripts/generate-schemas.ts) and a test fails
 * when the two drift. Change them only by adding optional fields.
 */

const isoDateTime = z.iso.datetime({ offset: true });
const stringMap = z.record(z.string(), z.string());

/** Where a message came from: partition and offset pin it for audits. */
export const originSchema = z.object({
  topic: z.string(),
  partition: z.number().int().min(0),
  offset: z.string().regex(/^\d+$/),
});
export type Origin = z.infer<typeof originSchema>;

/**
 * The request message's key and traceparent, so that messages written later on the request's
 * behalf (its result, vehicle-search events) share its partition and its trace. Opaque to
 * handlers.
 */
export interface Correlation {
  key: Buffer | null;
  traceparent?: string | undefined;
}

/**
 * A request as upstream publishes it. `params` is checked per operation (contract/params.ts)
 * after the envelope, so the dead letter can say which of the two was wrong. Unknown members
 * are ignored: publishers may be newer than us.
 */
export const requestEnvelopeSchema = z.object({
  requestId: z.string().min(1).max(128),
  params: z.record(z.string(), z.unknown()),
  requestedAt: isoDateTime.optional(),
  source: z.string().max(256).optional(),
  metadata: stringMap.optional(),
});
export type RequestEnvelope = z.infer<typeof requestEnvelopeSchema>;

export const vendorCallSchema = z.object({
  id: z.string().optional(),
  version: z.string().optional(),
  httpStatus: z.number().int(),
  timeSpent: z.number().optional(),
});

/**
 * Describes a value replaced to keep a result under the size limit (`idCards[].base64`, or the
 * file or selfie echoed in `params`).
 */
export const replacedContentSchema = z.object({
  path: z.string(),
  sha256: z.string(),
  length: z.number().int(),
});

export const RESULT_STATUSES = ['ok', 'not_found', 'accepted'] as const;

export const resultEnvelopeSchema = z.object({
  requestId: z.string().min(1).max(128),
  operation: z.enum(OPERATIONS),
  status: z.enum(RESULT_STATUSES),
  params: z.record(z.string(), z.unknown()),
  response: z.unknown(),
  vendor: vendorCallSchema,
  attempts: z.number().int().min(0),
  receivedAt: isoDateTime,
  completedAt: isoDateTime,
  requestedAt: isoDateTime.optional(),
  source: z.string().optional(),
  metadata: stringMap.optional(),
  origin: originSchema,
  /** Set on `accepted` results of vehicle-async: the vendor's id of the search. */
  searchId: z.string().optional(),
  /** Values replaced by their digest because the result was too large. */
  replaced: z.array(replacedContentSchema).optional(),
});
export type ResultEnvelope = z.infer<typeof resultEnvelopeSchema>;

export const errorDetailSchema = z.object({
  kind: z.enum(ERROR_KINDS),
  message: z.string(),
  retryable: z.boolean(),
  httpStatus: z.number().int().optional(),
  code: z.string().optional(),
});

export const errorEnvelopeSchema = z.object({
  /** Null only when the request could not be read far enough to know it. */
  requestId: z.string().min(1).max(128).nullable(),
  operation: z.enum(OPERATIONS),
  attempts: z.number().int().min(0),
  failedAt: isoDateTime,
  error: errorDetailSchema,
  /** The request as received, or `{ raw: <base64> }` when it could not be read. */
  request: z.record(z.string(), z.unknown()),
  origin: originSchema,
  metadata: stringMap.optional(),
});
export type ErrorEnvelope = z.infer<typeof errorEnvelopeSchema>;

export const VEHICLE_SEARCH_STATUSES = ['pending', 'completed', 'failed', 'expired'] as const;
export type VehicleSearchStatus = (typeof VEHICLE_SEARCH_STATUSES)[number];

export const vehicleSearchEventSchema = z.object({
  requestId: z.string().min(1).max(128),
  searchId: z.string().min(1),
  status: z.enum(VEHICLE_SEARCH_STATUSES),
  /** How the final status became known; absent on `pending`. */
  via: z.enum(['webhook', 'poll']).optional(),
  response: z.unknown().optional(),
  at: isoDateTime,
  metadata: stringMap.optional(),
});
export type VehicleSearchEvent = z.infer<typeof vehicleSearchEventSchema>;
