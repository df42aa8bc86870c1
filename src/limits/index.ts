export { createLimiters, DEFAULT_RATE_MARGIN } from './create-limiters.js';
export { LimiterClosedError, QuotaUnavailableError } from './errors.js';
export type {
  LimiterDeps,
  Limiters,
  OperationLimiter,
  OperationLimitSettings,
  SpendCapListener,
} from './types.js';
