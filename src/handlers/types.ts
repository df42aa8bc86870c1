import type { Correlation, Origin } from '../contract/envelopes.js';
import type { Operation } from '../contract/operations.js';
import type { ParamsOf } from '../contract/params.js';

/**
 * What a handler returns: the outcome of one vendor operation, in the contract's terms.
 * Handlers know nothing of Kafka: the runtime turns this into envelopes and topics.
 */
export interface HandlerOutcome {
  status: 'ok' | 'not_found' | 'accepted';
  /** The vendor's body as received (unknown fields kept for audits). */
  response: unknown;
  vendor: { id?: string; version?: string; httpStatus: number; timeSpent?: number };
  /** `accepted` vehicle-async results: the vendor's id of the search. */
  searchId?: string;
}

export interface HandlerContext {
  requestId: string;
  signal: AbortSignal;
  /**
   * Called synchronously as the vendor request is about to be written; when it throws, nothing
   * is sent and the call rejects with its error (the limiter's check that the call still fits
   * its slot: Slot.confirm).
   */
  beforeSend?: (() => void) | undefined;
  /** The request's metadata, echoed on messages written later on its behalf. */
  metadata?: Readonly<Record<string, string>> | undefined;
  correlation?: Correlation | undefined;
  /**
   * Where the request message sits (topic, partition, offset). Its offset is committed in the
   * same transaction as the messages written for it, so a committed offset past it proves
   * those messages visible (vehicle-async: its `pending` event, before any final event).
   */
  origin?: Origin | undefined;
}

/** A handler receives its operation's params as its schema parsed them (contract/params.ts). */
export type Handler<O extends Operation = Operation> = ((
  params: ParamsOf<O>,
  context: HandlerContext,
) => Promise<HandlerOutcome>) & {
  /**
   * Work done once before the vendor call and outside its limiter and breaker (a selfie
   * download): returns the params the handler is then called with.
   */
  prepare?: (params: ParamsOf<O>, signal: AbortSignal) => Promise<ParamsOf<O>>;
};

export type Handlers = { readonly [O in Operation]: Handler<O> };
