import type { VendorResult } from '../vendor-api/types.js';
import type { HandlerOutcome } from './types.js';

/** The contract's view of a vendor answer: its status, its body as received, its call data. */
export function toOutcome(result: VendorResult<unknown>): HandlerOutcome {
  return {
    status: result.outcome,
    response: result.raw,
    vendor: {
      httpStatus: result.httpStatus,
      ...(result.vendorId === undefined ? {} : { id: result.vendorId }),
      ...(result.version === undefined ? {} : { version: result.version }),
      ...(result.timeSpent === undefined ? {} : { timeSpent: result.timeSpent }),
    },
  };
}
