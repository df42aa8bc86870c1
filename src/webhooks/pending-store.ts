import { z } from 'zod';
import { originSchema } from '../contract/envelopes.js';

/**
 * Searches created and not yet final, with the time of their next poll, plus the claims and
 * done markers that make each search's final event single. Two implementations: Redis (shared
 * by replicas, survives restarts) and memory (one instance, lost on restart).
 */
export const pendingSearchSchema = z.object({
  requestId: z.string(),
  searchId: z.string(),
  /** Epoch ms: when the search was recorded; the expiry counts from here. */
  createdAt: z.number(),
  /** The request message's key, base64 (null: the request had none). */
  key: z.string().nullable(),
  traceparent: z.string().optional(),
  metadata: z.record(z.string(), z.string()).optional(),
  /**
   * The request message that created the search. Its final event waits until the consumer
   * group has committed past this offset (completion.ts). Absent in entries recorded before
   * the field existed: those requests were committed long ago.
   */
  origin: originSchema.optional(),
  /** Polls made so far: the backoff exponent. */
  polls: z.number().int().min(0),
});
export type PendingSearch = z.infer<typeof pendingSearchSchema>;

export interface PendingStore {
  /** Records a search due for polling at `dueAt`; replaces an earlier search of the same request. */
  add(search: PendingSearch, dueAt: number): Promise<void>;
  get(requestId: string): Promise<PendingSearch | undefined>;
  /**
   * Up to `limit` request ids whose next poll is at or before `now`, earliest first, each
   * pushed to `now + leaseMs` in the same step: replicas scanning together take different
   * searches, and one taken by a process that dies is due again when the lease ends.
   */
  takeDue(now: number, limit: number, leaseMs: number): Promise<string[]>;
  /** Stores `search` (its poll count) and its next poll, unless the request now has another search or none. */
  reschedule(search: PendingSearch, dueAt: number): Promise<void>;
  /** Takes the request's claim for `ttlMs` if nobody holds it. */
  claim(requestId: string, owner: string, ttlMs: number): Promise<boolean>;
  /**
   * True at most once per `intervalMs` per request, across replicas: the webhook sink's gate
   * on vendor GETs, so that replayed calls cost no more than one GET per interval.
   */
  admitFetch(requestId: string, intervalMs: number): Promise<boolean>;
  /** Holds the claim `ttlMs` longer, only if `owner` still holds it (false otherwise). */
  extend(requestId: string, owner: string, ttlMs: number): Promise<boolean>;
  /** Gives the claim back, only if `owner` still holds it. */
  release(requestId: string, owner: string): Promise<void>;
  /** Forgets the search and remembers it as done for `doneTtlMs` (for late webhook calls). */
  finish(requestId: string, searchId: string, doneTtlMs: number): Promise<void>;
  /** The searchId last finished for the request, while remembered. */
  doneSearch(requestId: string): Promise<string | undefined>;
  /** Searches waiting for a final status (for metrics). */
  count(): Promise<number>;
  /** When the earliest search is due (or its lease ends); none when no search waits. */
  nextDue(): Promise<number | undefined>;
  close(): Promise<void>;
}

export function encodeSearch(search: PendingSearch): string {
  return JSON.stringify(search);
}

export function decodeSearch(text: string): PendingSearch | undefined {
  try {
    const parsed = pendingSearchSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
