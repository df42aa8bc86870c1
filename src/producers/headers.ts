import { randomUUID } from 'node:crypto';
import type { IHeaders } from '../kafka/client.js';

/**
 * Headers of every message the service writes (shared/contract.md, "Headers written"):
 * content type, CloudEvents binary-mode attributes, and the request's traceparent.
 */
export interface HeaderInput {
  type: string;
  /** The requestId, when known. */
  subject: string | null;
  source: string;
  time: Date;
  traceparent?: string | undefined;
}

export function buildHeaders(input: HeaderInput): IHeaders {
  const headers: IHeaders = {
    'content-type': 'application/json',
    ce_specversion: '1.0',
    ce_id: randomUUID(),
    ce_source: input.source,
    ce_type: input.type,
    ce_time: input.time.toISOString(),
  };
  if (input.subject !== null) headers.ce_subject = input.subject;
  if (input.traceparent !== undefined) headers.traceparent = input.traceparent;
  return headers;
}

/** The W3C traceparent of an incoming message, when it carries a well-formed one. */
export function readTraceparent(headers: IHeaders | undefined): string | undefined {
  const raw = headers?.traceparent;
  const value = Array.isArray(raw) ? raw[0] : raw;
  if (value === undefined) return undefined;
  const text = value.toString();
  return /^[\da-f]{2}-[\da-f]{32}-[\da-f]{16}-[\da-f]{2}$/.test(text) ? text : undefined;
}
