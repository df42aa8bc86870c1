import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import { Kafka, logLevel, type Admin } from 'kafkajs';
import type { Logger } from 'pino';
import { otlpTracesEndpoint, type Config } from './config.js';
import { CircuitBreaker } from './consumers/circuit-breaker.js';
import { memoryIdempotencyStore, redisIdempotencyStore } from './consumers/idempotency.js';
import { Runtime } from './consumers/runtime.js';
import { jsonSchemasByTopic } from './contract/json-schemas.js';
import { OPERATIONS, topicNames, type Operation } from './contract/operations.js';
import { parseParams } from './contract/params.js';
import { localFigures } from './console/figures.js';
import { attachConsole } from './console/server.js';
import { createHandlers } from './handlers/index.js';
import { createLimiters } from './limits/index.js';
import { boundPort, createAdminServer, createPublicServer } from './observability/http-server.js';
import { checkTimeoutMs, dependencyChecks, Readiness } from './observability/readiness.js';
import { kafkaLogCreator } from './observability/kafka-logger.js';
import {
  instrumentHandlers,
  instrumentIdempotency,
  instrumentLimiters,
  instrumentProducer,
  instrumentPublisher,
  watchBreaker,
} from './observability/instrument.js';
import { attachServiceMetrics, createMetrics, type ServiceMetrics } from './observability/metrics.js';
import { createTracing } from './observability/tracing.js';
import { traceProcessDeps } from './observability/tracing-instrument.js';
import { createPartitionProducer } from './producers/partition-producer.js';
import { checkRedis, createRedisClient, redisReady } from './observability/redis-client.js';
import { createRegistryClient } from './producers/registry-client.js';
import { SchemaIds } from './producers/schema-ids.js';
import { contractTopics, ensureTopics } from './producers/topic-setup.js';
import { maxRawBytes } from './producers/dead-letter-record.js';
import type { OutputDeps } from './producers/output-records.js';
import { liveRegistryCodec, plainJsonCodec, type ValueCodec } from './producers/value-codec.js';
import { createVendorClient, type VendorClient } from './vendor-api/client.js';
import {
  createEventPublisher,
  createVehicleSearchTracker,
  memoryPendingStore,
  redisPendingStore,
  requestCommitCheck,
  type ScheduleLimiter,
  type VehicleSearchTracker,
} from './webhooks/index.js';

/**
 * The composition root: config → clients → runtime → HTTP. Nothing else builds singletons.
 * SIGTERM (cli.ts) calls stop(), which drains in-flight work within SHUTDOWN_TIMEOUT_MS.
 */
export interface Service {
  /** The public (webhook sink) port actually bound (useful with HTTP_PORT=0). */
  readonly httpPort: number;
  /** The admin (health, readiness, metrics) port actually bound. */
  readonly adminPort: number;
  stop(): Promise<void>;
}

export interface ServiceOptions {
  /** Called when the runtime cannot go on; the CLI exits non-zero so the orchestrator restarts it. */
  onFatal?: (error: unknown) => void;
  /** Tests: receives every span (tracing is on with it even without an OTLP endpoint). */
  spanExporter?: SpanExporter;
}

export async function startService(
  config: Config,
  logger: Logger,
  options: ServiceOptions = {},
): Promise<Service> {
  const topics = topicNames(config.TOPIC_PREFIX);
  const kafka = new Kafka({
    clientId: config.KAFKA_CLIENT_ID,
    brokers: [...config.KAFKA_BROKERS],
    logLevel: logLevel.WARN,
    logCreator: kafkaLogCreator(logger),
    ...config.kafkaSecurity,
  });
  const admin = kafka.admin();
  await admin.connect();
  const closers: (() => Promise<unknown>)[] = [() => admin.disconnect()];
  try {
    if (config.CREATE_TOPICS) {
      const created = await ensureTopics(admin, contractTopics(topics, topicSettings(config)));
      if (created.length > 0) logger.info({ topics: created }, 'topics created');
    }
    const { codec, registryCheck } = await createCodec(config, logger);
    const redis =
      config.REDIS_URL === undefined
        ? undefined
        : createRedisClient(config.REDIS_URL, logger, {
            // rediss:// turns TLS on (ioredis); the password may come from REDIS_PASSWORD_FILE.
            ...(config.REDIS_PASSWORD === undefined ? {} : { password: config.REDIS_PASSWORD }),
          });
    if (redis) {
      closers.push(() => redis.quit());
      await checkRedis(redis);
    }
    const vendor = createVendorClient({
      baseUrl: config.VENDOR_BASE_URL,
      apiKey: config.VENDOR_API_KEY,
      connections: config.VENDOR_CONNECTIONS,
      connectTimeoutMs: config.VENDOR_CONNECT_TIMEOUT_MS,
      headersTimeoutMs: config.VENDOR_TIMEOUT_MS,
      bodyTimeoutMs: config.VENDOR_TIMEOUT_MS,
      selfieDownload: { allow: config.SELFIE_URL_ALLOW },
      callTimeoutMs: config.VENDOR_TIMEOUT_MS,
      maxResponseBytes: config.VENDOR_MAX_RESPONSE_BYTES,
    });
    closers.unshift(() => vendor.close());
    const limiters = createLimiters({
      settings: config.limits,
      ...(redis ? { redis } : {}),
      keyPrefix: `${config.TOPIC_PREFIX}:limits`,
      logger,
    });
    closers.unshift(() => limiters.close());
    const serviceMetrics = createMetrics();
    const tracing = createTracing({
      serviceName: config.OTEL_SERVICE_NAME,
      otlpTracesEndpoint: otlpTracesEndpoint(config),
      exporter: options.spanExporter,
    });
    if (tracing) closers.push(() => tracing.shutdown());
    const limiterOf = instrumentLimiters((op) => limiters.get(op), serviceMetrics);
    const breakers = new Map<Operation, CircuitBreaker>(
      OPERATIONS.map((op) => [
        op,
        new CircuitBreaker({
          failureThreshold: config.BREAKER_FAILURE_THRESHOLD,
          cooldownMs: config.BREAKER_COOLDOWN_MS,
        }),
      ]),
    );
    const breakerFor = (op: Operation): CircuitBreaker => breakers.get(op) ?? fail(`no breaker for ${op}`);
    for (const op of OPERATIONS) watchBreaker(op, breakerFor(op), serviceMetrics);
    const runtimeRef: { current?: Runtime } = {};
    const figures = localFigures({
      replica: `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`,
      metrics: serviceMetrics,
      limits: config.limits,
      breakerFor,
      paused: () => runtimeRef.current?.pausedPartitions() ?? [],
      requestTopic: (op) => topics.request(op),
      now: () => Date.now(),
    });
    const { metrics } = figures;
    const output = {
      codec,
      topics,
      source: `/verification-gateway/${config.KAFKA_GROUP_ID}`,
      resultMaxBytes: config.RESULT_MAX_BYTES,
      now: () => new Date(),
    };
    // The console's figures count each call its limiter starts.
    const countedLimiters = new Map(OPERATIONS.map((op) => [op, figures.counted(op, limiterOf[op])]));
    const tracker = createTracker(config, logger, {
      kafka,
      admin,
      output,
      vendor,
      redis,
      limiter: limiterOf['vehicle-async'],
      metrics,
    });
    // Before http.close is put in front: the sink stops taking calls first, then the tracker.
    closers.unshift(() => tracker.stop());
    const runtime = new Runtime({
      kafka,
      admin,
      topics,
      logger,
      metrics,
      breakerFor,
      createProducer: (id) => instrumentProducer(createPartitionProducer(kafka, id), metrics),
      settings: {
        groupId: config.KAFKA_GROUP_ID,
        maxInFlight: config.MAX_IN_FLIGHT,
        partitionWindow: config.PARTITION_WINDOW,
        commitIntervalMs: config.COMMIT_INTERVAL_MS,
        shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
        sessionTimeoutMs: config.KAFKA_SESSION_TIMEOUT_MS,
      },
      tracing,
      process: traceProcessDeps(
        {
          decodeValue: (value) => codec.decode(value),
          parseParams: (operation, params) => {
            const parsed = parseParams(operation, params);
            return parsed.ok ? { ok: true, value: parsed.params } : { ok: false, message: parsed.message };
          },
          handlers: instrumentHandlers(
            createHandlers({
              vendor,
              vehicleSearchWebhook: tracker.webhookFor,
              onVehicleSearchCreated: (search, signal) => tracker.onSearchCreated(search, signal),
            }),
            metrics,
          ),
          limiterFor: (op) => countedLimiters.get(op) ?? limiterOf[op],
          breakerFor,
          idempotency: instrumentIdempotency(
            redis
              ? redisIdempotencyStore(redis, {
                  keyPrefix: `${config.TOPIC_PREFIX}:idempotency`,
                  windowSeconds: config.DEDUPE_WINDOW_SECONDS,
                  // Refreshed while the call runs; lapses only when its holder is gone.
                  reservationTtlMs: config.VENDOR_TIMEOUT_MS + 10_000,
                })
              : memoryIdempotencyStore(config.DEDUPE_WINDOW_SECONDS),
            metrics,
          ),
          onRetry: (op, reason) => {
            metrics.retry(op, reason);
          },
          retry: {
            maxAttempts: config.RETRY_MAX_ATTEMPTS,
            baseDelayMs: config.RETRY_BASE_MS,
            maxDelayMs: config.RETRY_MAX_DELAY_MS,
            budgetMs: config.RETRY_BUDGET_MS,
          },
          maxRequestBytes: config.MAX_REQUEST_BYTES,
          maxJsonDepth: config.MAX_JSON_DEPTH,
          maxRawBytes: maxRawBytes(config.RESULT_MAX_BYTES),
          now: () => new Date(),
          sleep: abortableSleep,
        },
        tracing,
      ),
      output,
      onFatal:
        options.onFatal ??
        ((error) => {
          logger.fatal({ err: error }, 'fatal');
        }),
    });
    const stopMetrics = attachServiceMetrics(metrics, {
      runtime,
      limiters: limiterOf,
      spendCaps: Object.fromEntries(OPERATIONS.map((op) => [op, config.limits[op].spendCapPerHour])),
      breakerState: (op) => breakerFor(op).state,
      lag: {
        admin,
        groupId: config.KAFKA_GROUP_ID,
        topics: OPERATIONS.map((op) => topics.request(op)),
        intervalMs: config.CONSUMER_LAG_INTERVAL_MS,
        logger,
      },
    });
    closers.unshift(stopMetrics);
    runtimeRef.current = runtime;
    limiters.on('spend-cap', (operation, resumeAt) => {
      logger.warn(
        { operation, resumeAt: new Date(resumeAt).toISOString() },
        'spend cap reached; pausing the operation',
      );
      runtime.pauseOperationUntil(operation, resumeAt);
    });
    let ready = false;
    const interval = config.DEPENDENCY_CHECK_INTERVAL_MS;
    const readiness = new Readiness(
      dependencyChecks({ admin, registry: registryCheck }),
      { intervalMs: interval, timeoutMs: checkTimeoutMs(interval) },
      logger,
    );
    readiness.start();
    closers.unshift(() => {
      readiness.stop();
      return Promise.resolve();
    });
    const adminHttp = createAdminServer({
      metrics: metrics.registry,
      isReady: () => ready && readiness.isReady() && (redis === undefined || redisReady(redis)),
    });
    if (config.console) {
      const closeConsole = await attachConsole(adminHttp, config, config.console, {
        kafka,
        redis,
        logger,
        figures: () => figures.snapshot(),
      });
      closers.unshift(closeConsole);
    }
    await adminHttp.listen({ host: config.ADMIN_HOST, port: config.ADMIN_PORT });
    closers.unshift(() => adminHttp.close());
    const http: FastifyInstance = createPublicServer({
      onResponse: (code) => {
        metrics.webhookCall(code);
      },
    });
    tracker.registerRoutes(http);
    await http.listen({ host: config.HTTP_HOST, port: config.HTTP_PORT });
    closers.unshift(() => http.close());
    // After listen (the webhook URL may need the bound port), before the first request.
    await tracker.start();
    await runtime.start();
    ready = true;
    const httpPort = boundPort(http, config.HTTP_PORT);
    const adminPort = boundPort(adminHttp, config.ADMIN_PORT);
    logger.info(
      {
        httpPort,
        adminPort,
        prefix: config.TOPIC_PREFIX,
        registry: config.SCHEMA_REGISTRY_URL !== undefined,
        redis: redis !== undefined,
      },
      'service started',
    );
    return {
      httpPort,
      adminPort,
      async stop() {
        ready = false;
        await runtime.stop();
        await closeAll(closers, logger);
      },
    };
  } catch (error) {
    await closeAll(closers, logger);
    throw error;
  }
}

/**
 * Pending searches in Redis when there is one (replicas share them, restarts keep them), else
 * in memory (one instance; a restart loses the searches in flight).
 */
function createTracker(
  config: Config,
  logger: Logger,
  deps: {
    kafka: Kafka;
    admin: Admin;
    output: OutputDeps;
    vendor: VendorClient;
    redis: Redis | undefined;
    limiter: ScheduleLimiter;
    metrics: ServiceMetrics;
  },
): VehicleSearchTracker {
  const store = deps.redis
    ? redisPendingStore(deps.redis, `${config.TOPIC_PREFIX}:vehicle-search`)
    : memoryPendingStore();
  deps.metrics.attach({ pendingSearches: () => store.count() });
  return createVehicleSearchTracker({
    vendor: deps.vendor,
    store,
    publisher: instrumentPublisher(createEventPublisher(deps.kafka, deps.output), deps.metrics),
    limiter: deps.limiter,
    logger,
    // Final events wait for the commit of the request that created the search, which also
    // commits its `pending` event (the runtime writes both in one transaction).
    isRequestCommitted: requestCommitCheck(deps.admin, config.KAFKA_GROUP_ID),
    settings: {
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
    },
  });
}

function topicSettings(config: Config) {
  return {
    partitions: config.TOPIC_PARTITIONS,
    replicationFactor: config.TOPIC_REPLICATION_FACTOR,
    requestRetentionMs: config.REQUEST_RETENTION_MS,
    outputRetentionMs: config.OUTPUT_RETENTION_MS,
  };
}

async function createCodec(
  config: Config,
  logger: Logger,
): Promise<{ codec: ValueCodec; registryCheck?: () => Promise<void> }> {
  const url = config.SCHEMA_REGISTRY_URL;
  if (url === undefined) return { codec: plainJsonCodec() };
  // A registry that accepts connections but never answers is down too.
  const timeoutMs = 10_000;
  const schemas = jsonSchemasByTopic(config.TOPIC_PREFIX);
  const ids = await SchemaIds.register({
    registration: {
      registryUrl: url,
      compatibility: config.SCHEMA_COMPATIBILITY,
      auth: config.registryAuth,
      timeoutMs,
    },
    schemas,
    createClient: () => createRegistryClient(url, config.registryAuth, timeoutMs),
    logger,
  });
  logger.info({ subjects: schemas.size, compatibility: config.SCHEMA_COMPATIBILITY }, 'schemas registered');
  return { codec: liveRegistryCodec(ids), registryCheck: () => ids.check() };
}

async function closeAll(closers: (() => Promise<unknown>)[], logger: Logger): Promise<void> {
  for (const close of closers) {
    try {
      await close();
    } catch (error) {
      logger.warn({ err: error }, 'close failed');
    }
  }
}

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
      return;
    }
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

function fail(message: string): never {
  throw new Error(message);
}
