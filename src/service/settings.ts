import { hostname } from 'node:os';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import { commitSpacing, type Config } from '../config.js';
import type { BreakerSettings } from '../requests/circuit-breaker.js';
import type { RedisIdempotencySettings } from '../requests/idempotency.js';
import type { RetrySettings } from '../requests/retry-policy.js';
import type { RuntimeSettings } from '../consumers/runtime.js';
import { OPERATIONS, type Operation, type TopicNames } from '../contract/operations.js';
import type { TracingSettings } from '../observability/tracing.js';
import type { OutputDeps } from '../producers/output-records.js';
import type { TopicSettings } from '../producers/topic-setup.js';
import type { ValueCodec } from '../producers/value-codec.js';
import type { VendorClientOptions } from '../vendor-api/options.js';
import type { TrackerSettings } from '../webhooks/index.js';

/**
 * Config → the settings each part takes. The parts know nothing of environment variable
 * names; these mappers are the one place where a setting meets the part it tunes.
 */

export function topicSettings(config: Config): TopicSettings {
  return {
    partitions: config.TOPIC_PARTITIONS,
    replicationFactor: config.TOPIC_REPLICATION_FACTOR,
    requestRetentionMs: config.REQUEST_RETENTION_MS,
    outputRetentionMs: config.OUTPUT_RETENTION_MS,
    auditRetentionMs: config.AUDIT_RETENTION_MS,
  };
}

export function tracingSettings(config: Config, exporter: SpanExporter | undefined): TracingSettings {
  return {
    serviceName: config.OTEL_SERVICE_NAME,
    otlpTracesEndpoint: otlpTracesEndpoint(config),
    exporter,
  };
}

/**
 * Where traces go (OTLP/HTTP), by OpenTelemetry's rules: the traces endpoint as given, else
 * the base endpoint + /v1/traces, else the default collector when `OTEL_TRACES_EXPORTER=otlp`;
 * undefined (no tracing at all) otherwise.
 */
export function otlpTracesEndpoint(config: Config): string | undefined {
  if (config.OTEL_SDK_DISABLED || config.OTEL_TRACES_EXPORTER === 'none') return undefined;
  if (config.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return config.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  if (config.OTEL_EXPORTER_OTLP_ENDPOINT)
    return `${config.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/$/, '')}/v1/traces`;
  return config.OTEL_TRACES_EXPORTER === 'otlp' ? 'http://localhost:4318/v1/traces' : undefined;
}

export function vendorClientOptions(config: Config): VendorClientOptions {
  return {
    baseUrl: config.VENDOR_BASE_URL,
    apiKey: config.VENDOR_API_KEY,
    connections: config.VENDOR_CONNECTIONS,
    connectTimeoutMs: config.VENDOR_CONNECT_TIMEOUT_MS,
    headersTimeoutMs: config.VENDOR_TIMEOUT_MS,
    bodyTimeoutMs: config.VENDOR_TIMEOUT_MS,
    selfieDownload: { allow: config.SELFIE_URL_ALLOW },
    callTimeoutMs: config.VENDOR_TIMEOUT_MS,
    maxResponseBytes: config.VENDOR_MAX_RESPONSE_BYTES,
  };
}

export function breakerSettings(config: Config): BreakerSettings {
  return { failureThreshold: config.BREAKER_FAILURE_THRESHOLD, cooldownMs: config.BREAKER_COOLDOWN_MS };
}

let runtimesInProcess = 0;

/**
 * `<group>.<hostname>.<pid>`: the same for a container restarted in its pod (pid 1, so the new
 * process aborts what the old one left open), distinct for processes sharing a host; a second
 * runtime in one process (tests) gets a suffix.
 */
function defaultTransactionalId(groupId: string): string {
  runtimesInProcess += 1;
  const suffix = runtimesInProcess > 1 ? `-${runtimesInProcess}` : '';
  return `${groupId}.${hostname()}.${process.pid}${suffix}`;
}

/** Seconds of an operation's rate its bulk lane may hold (LANE_BULK_QUEUE unset). */
const BULK_QUEUE_SECONDS = 2;
const MIN_BULK_QUEUE = 10;

/**
 * LANE_BULK_QUEUE, else two seconds of each operation's rate: enough bulk taken to keep its
 * share of the limit busy through a vendor call and a commit, and no more (take-window.ts).
 */
function bulkWindows(config: Config): Record<Operation, number> {
  return Object.fromEntries(
    OPERATIONS.map((op) => [
      op,
      config.LANE_BULK_QUEUE ??
        Math.max(MIN_BULK_QUEUE, Math.ceil(config.limits[op].ratePerSecond * BULK_QUEUE_SECONDS)),
    ]),
  ) as Record<Operation, number>;
}

export function runtimeSettings(config: Config): RuntimeSettings {
  return {
    groupId: config.KAFKA_GROUP_ID,
    maxInFlight: config.MAX_IN_FLIGHT,
    partitionWindow: config.PARTITION_WINDOW,
    replicaWindow: config.REPLICA_WINDOW,
    bulkWindow: bulkWindows(config),
    ...commitSpacing(config),
    shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
    sessionTimeoutMs: config.KAFKA_SESSION_TIMEOUT_MS,
    transactionalId: config.KAFKA_TRANSACTIONAL_ID ?? defaultTransactionalId(config.KAFKA_GROUP_ID),
    transactionTimeoutMs: config.KAFKA_TRANSACTION_TIMEOUT_MS,
  };
}

export function retrySettings(config: Config): RetrySettings {
  return {
    maxAttempts: config.RETRY_MAX_ATTEMPTS,
    baseDelayMs: config.RETRY_BASE_MS,
    maxDelayMs: config.RETRY_MAX_DELAY_MS,
    budgetMs: config.RETRY_BUDGET_MS,
  };
}

export function idempotencySettings(config: Config): RedisIdempotencySettings {
  return {
    keyPrefix: `${config.TOPIC_PREFIX}:idempotency`,
    windowSeconds: config.DEDUPE_WINDOW_SECONDS,
    // Refreshed while the call runs; lapses only when its holder is gone.
    reservationTtlMs: config.VENDOR_TIMEOUT_MS + 10_000,
    atRest: config.atRest,
  };
}

export function outputSettings(config: Config, codec: ValueCodec, topics: TopicNames): OutputDeps {
  return {
    codec,
    topics,
    source: `/verification-gateway/${config.KAFKA_GROUP_ID}`,
    resultMaxBytes: config.RESULT_MAX_BYTES,
    now: () => new Date(),
  };
}

export function trackerSettings(config: Config): TrackerSettings {
  return {
    publicUrl: config.WEBHOOK_PUBLIC_URL,
    secret: config.WEBHOOK_SECRET,
    method: config.WEBHOOK_METHOD,
    pollBaseMs: config.VEHICLE_SEARCH_POLL_MS,
    pollMaxMs: config.VEHICLE_SEARCH_POLL_MAX_MS,
    expiryMs: config.VEHICLE_SEARCH_EXPIRY_MS,
    claimTtlMs: config.VEHICLE_SEARCH_CLAIM_TTL_MS,
    // Late webhook calls get 200 for as long as a redelivered request reuses its outcome.
    doneTtlMs: config.DEDUPE_WINDOW_SECONDS * 1000,
    webhookFetchIntervalMs: config.WEBHOOK_FETCH_INTERVAL_MS,
    sinkLimits: {
      maxConcurrent: config.WEBHOOK_MAX_CONCURRENT,
      ratePerSecond: config.WEBHOOK_RATE_PER_SECOND,
    },
  };
}
