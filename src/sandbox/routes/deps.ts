import type { FastifyRequest } from 'fastify';
import type { AsyncSearchStore } from '../async-searches.js';
import type { RecordCache } from '../cache.js';
import { fingerprintOf } from '../counters.js';

export interface RouteDeps {
  cache: RecordCache;
  asyncSearches: AsyncSearchStore;
}

/** Names the billable input of this call: operation + hash of its normalised form. */
export function setFingerprint(request: FastifyRequest, normalisedInput: string): void {
  const state = request.sandboxState;
  state.fingerprint = fingerprintOf(state.operation ?? 'unknown', normalisedInput);
}
