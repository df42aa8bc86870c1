export { createVehicleSearchTracker, type TrackerSettings, type VehicleSearchTracker } from './tracker.js';
export type { ScheduleLimiter } from '../limits/types.js';
export { createEventPublisher, type EventPublisher } from './event-publisher.js';
export { memoryPendingStore } from './memory-pending-store.js';
export { redisPendingStore } from './redis-pending-store.js';
export { requestCommitCheck } from './request-commit.js';
export type { PendingSearch, PendingStore } from './pending-store.js';
export { WEBHOOK_HEADERS, signedHeaders, signWebhook, verifyWebhook } from './signature.js';
export { WEBHOOK_PATH } from './webhook-target.js';
