import type { VehicleSearchWebhook } from '../vendor-api/operations/vehicle-async.js';
import { signedHeaders } from './signature.js';

/** Path of the sink on the service's HTTP server. */
export const WEBHOOK_PATH = '/webhooks/vehicle-search';

export type WebhookMethod = NonNullable<VehicleSearchWebhook['method']>;

export interface WebhookTargetSettings {
  /** Base URL of the service as the vendor reaches it; the sink path is appended. */
  publicUrl: URL;
  secret: string;
  method: WebhookMethod;
  now(): Date;
}

/**
 * The webhook handed to POST /vehicles-async/v3 for one request. The body repeats the
 * requestId for people reading the vendor's records; the sink reads the signed headers only,
 * since a GET call carries no body.
 */
export function webhookTarget(settings: WebhookTargetSettings): (requestId: string) => VehicleSearchWebhook {
  const url = sinkUrl(settings.publicUrl);
  return (requestId) => ({
    url,
    method: settings.method,
    headers: signedHeaders(settings.secret, requestId, settings.now()),
    ...(settings.method === 'GET' ? {} : { body: { requestId } }),
  });
}

/** `https://gw.example.com/base` → `https://gw.example.com/base/webhooks/vehicle-search`. */
export function sinkUrl(publicUrl: URL): string {
  const base = new URL(publicUrl.href);
  base.pathname = `${base.pathname.replace(/\/+$/, '')}${WEBHOOK_PATH}`;
  base.search = '';
  base.hash = '';
  return base.href;
}

/**
 * WEBHOOK_PUBLIC_URL with port 0 means "the port the service bound" (HTTP_PORT=0 in tests and
 * local runs); any other port is taken as given (a proxy or a load balancer in front).
 */
export function resolvePublicUrl(configured: string, boundPort: number | undefined): URL {
  const url = new URL(configured);
  if (url.port === '0') {
    if (boundPort === undefined)
      throw new Error('WEBHOOK_PUBLIC_URL has port 0 but no HTTP port is bound yet');
    url.port = String(boundPort);
  }
  return url;
}
