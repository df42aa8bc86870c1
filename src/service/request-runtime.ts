import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { reportNotStored, reportRefusals } from '../at-rest/refusals.js';
import { parseRequestParams } from '../contract/params.js';
import { memoryIdempotencyStore, redisIdempotencyStore } from '../requests/idempotency.js';
import { Gathering } from '../requests/gathering.js';
import { framingMismatchReporter } from '../requests/decode-wait.js';
import type { ProcessDeps } from '../requests/process-request.js';
import { abortableSleep } from '../retry.js';
import { Runtime } from '../consumers/runtime.js';
import { createHandlers } from '../handlers/index.js';
import { instrumentHandlers, instrumentIdempotency, instrumentProducer } from './instrument.js';
import type { Tracing } from '../observability/tracing.js';
import { traceProcessDeps } from './tracing-instrument.js';
import { maxRawBytes } from '../producers/dead-letter-record.js';
import type { OutputDeps } from '../producers/output-records.js';
import { createTransactionalProducer } from '../consumers/transactional-producer.js';
import type { VehicleSearchTracker } from '../webhooks/index.js';
import type { CallParts } from './call-parts.js';
import type { Infrastructure } from './infrastructure.js';
import { idempotencySettings, retrySettings, runtimeSettings } from './settings.js';

export interface RequestRuntimeDeps {
  infra: Infrastructure;
  calls: CallParts;
  tracker: VehicleSearchTracker;
  output: OutputDeps;
  tracing: Tracing | undefined;
  onFatal: ((error: unknown) => void) | undefined;
}

/** The consumer runtime with everything a request passes through on its way to an outcome. */
export function createRuntime(config: Config, logger: Logger, deps: RequestRuntimeDeps): Runtime {
  const { kafka, groupOffsets, topics } = deps.infra;
  const { metrics, breakerFor } = deps.calls;
  const settings = runtimeSettings(config);
  return new Runtime({
    kafka,
    admin: groupOffsets.stable,
    topics,
    logger,
    metrics,
    breakerFor,
    producer: instrumentProducer(
      createTransactionalProducer(kafka, {
        ...settings,
        onResume: (call, error) => {
          metrics.transactionCallResumed(call);
          logger.warn({ err: error, call }, 'transaction call made again after a transient error');
        },
        onStalled: (step, ms) => {
          logger.warn({ step, ms }, 'a step of the commit round is taking long');
        },
      }),
      metrics,
    ),
    settings,
    tracing: deps.tracing,
    process: traceProcessDeps(processDeps(config, logger, deps), deps.tracing),
    output: deps.output,
    onFatal:
      deps.onFatal ??
      ((error) => {
        logger.fatal({ err: error }, 'fatal');
      }),
  });
}

function processDeps(config: Config, logger: Logger, deps: RequestRuntimeDeps): ProcessDeps {
  const { calls, tracker } = deps;
  const { redis } = deps.infra;
  const onRefused = reportRefusals('paid-outcome', logger, (store, reason) => {
    calls.metrics.redisValueRefused(store, reason);
  });
  const onNotStored = reportNotStored('paid-outcome', logger, (store) => {
    calls.metrics.redisValueNotStored(store);
  });
  return {
    decodeValue: (value) => deps.infra.codec.readRequest(value),
    onFramingMismatch: framingMismatchReporter((operation, kind) => {
      calls.metrics.framingMismatch(operation, kind);
    }),
    parseParams: parseRequestParams,
    handlers: instrumentHandlers(
      createHandlers({
        vendor: calls.vendor,
        vehicleSearchWebhook: tracker.webhookFor,
        onVehicleSearchCreated: (search, signal) => tracker.onSearchCreated(search, signal),
      }),
      calls.metrics,
    ),
    limiterFor: calls.countedLimiterFor,
    breakerFor: calls.breakerFor,
    idempotency: instrumentIdempotency(
      redis
        ? redisIdempotencyStore(redis, { ...idempotencySettings(config), onRefused, onNotStored })
        : memoryIdempotencyStore(config.DEDUPE_WINDOW_SECONDS, config.MEMORY_DEDUPE_MAX_ENTRIES),
      calls.metrics,
    ),
    onRetry: (op, reason) => {
      calls.metrics.retry(op, reason);
    },
    retry: retrySettings(config),
    maxRequestBytes: config.MAX_REQUEST_BYTES,
    maxJsonDepth: config.MAX_JSON_DEPTH,
    maxRawBytes: maxRawBytes(config.RESULT_MAX_BYTES),
    now: () => new Date(),
    sleep: abortableSleep,
    gather: gatherAnswers(config.ANSWER_GATHER_MAX_MS),
  };
}

/** Gathering's hold: a tenth of the time the request took, as the commit spacing's share. */
function gatherAnswers(maxMs: number): ProcessDeps['gather'] {
  if (maxMs === 0) return undefined;
  const gathering = new Gathering({ share: 0.1, maxMs });
  return (elapsedMs) => gathering.wait(elapsedMs);
}
