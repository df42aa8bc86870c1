#!/usr/bin/env node
import './threadpool.js';
import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { registerAuditCommands } from './audit/commands.js';
import { AUDIT_ERROR_CODES } from './audit/errors.js';
import { devAtRestFiles } from './at-rest/dev-keys.js';
import { devEnvironment, loadConfig, sandboxEnvironment, type Config } from './config.js';
import { topicNames } from './contract/operations.js';
import { CommandError } from './errors.js';
import { startService, type Service } from './main.js';
import { createDevLogger, createLogger, type Logger } from './observability/logger.js';
import { routeProcessWarnings } from './observability/node-warnings.js';
import { createRegistryClient } from './producers/registry-client.js';
import { plainJsonCodec, registryCodec, type ValueCodec } from './producers/value-codec.js';
import { EXIT_GRACE_MS, exitDeadline } from './service/exit-deadline.js';
import { startWithFatalHandler } from './service/fatal-handler.js';
import { applyHeapGrowth } from './service/heap-growth.js';
import { createKafka, type Kafka } from './kafka/client.js';

/** Commands: run, sandbox, dev (replay, redrive and erase live in src/audit/). */

const BAD_FLAGS_EXIT_CODE = AUDIT_ERROR_CODES.BAD_ARGUMENTS;

const program = new Command('verification-gateway')
  .description('Kafka-driven gateway to the identity and registry vendor API')
  // commander's own refusals (an unknown flag, a missing or bad value) throw instead of
  // exiting 1, and exit 2 like every other bad flag (set before the commands: they inherit it).
  .exitOverride();
registerAuditCommands(program);

program
  .command('run')
  .description('run the service (configuration from the environment; see docs/configuration.md)')
  .action(async () => {
    const config = loadConfig();
    applyHeapGrowth(config.HEAP_GROWTH_PERCENT);
    const logger = createLogger({ level: config.LOG_LEVEL });
    routeProcessWarnings(logger);
    const deadlineMs = config.SHUTDOWN_TIMEOUT_MS + EXIT_GRACE_MS;
    const service = await startWithFatalHandler(
      (onFatal) => startService(config, logger, { onFatal }),
      (started) => void shutdown(started, logger, 1, deadlineMs),
    );
    onSignals(() => shutdown(service, logger, 0, deadlineMs));
  });

/**
 * The sandbox and the demo are loaded only by the commands that use them: the production
 * image leaves them and their dependencies out (Dockerfile).
 */
async function devModule<T>(load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ERR_MODULE_NOT_FOUND') throw error;
    throw new Error('the sandbox is not part of this build (the production image leaves it out)', {
      cause: error,
    });
  }
}

program
  .command('sandbox')
  .description('run the vendor API sandbox (SANDBOX_PORT, SANDBOX_API_KEY, SANDBOX_* knobs)')
  .action(async () => {
    const env = sandboxEnvironment();
    const logger = createLogger({ level: env.SANDBOX_LOG_LEVEL ?? 'info' });
    const { runSandboxFromEnv } = await devModule(() => import('./sandbox/main.js'));
    const sandbox = await runSandboxFromEnv(env, logger);
    onSignals(async () => {
      await sandbox.close();
      process.exit(0);
    });
  });

program
  .command('dev')
  .description(
    'sandbox + service against the local stack (npm run stack:up), then a demo request per operation',
  )
  .option('--exit-after-demo', 'stop once the demo has printed its outcomes')
  .option('--demo-timeout <ms>', 'how long the demo waits for outcomes', parsePositiveInt, 60_000)
  .option(
    '--demo-bulk <count>',
    'bulk-lane requests the demo publishes before the interactive ones',
    parseNonNegativeInt,
    40,
  )
  .action(async (options: { exitAfterDemo?: boolean; demoTimeout: number; demoBulk: number }) => {
    const base = devEnvironment();
    const env = { ...devAtRestFiles(base), ...base };
    const logger = await createDevLogger(env.LOG_LEVEL ?? 'info');
    routeProcessWarnings(logger);
    const { runSandboxFromEnv } = await devModule(() => import('./sandbox/main.js'));
    const { runDemo } = await devModule(() => import('./demo/demo.js'));
    const sandbox = await runSandboxFromEnv(
      {
        ...env,
        SANDBOX_PORT: env.SANDBOX_PORT ?? '0',
        SANDBOX_ASYNC_DELAY_MS: env.SANDBOX_ASYNC_DELAY_MS ?? '1500',
      },
      logger,
    );
    const config = loadConfig({
      ...env,
      VENDOR_BASE_URL: sandbox.url,
      VENDOR_API_KEY: env.SANDBOX_API_KEY ?? 'sandbox-key',
      // The local sandbox speaks plain http.
      ALLOW_INSECURE_VENDOR: 'true',
    });
    const service = await startWithFatalHandler(
      (onFatal) => startService(config, logger, { onFatal }),
      (started) => void shutdown(started, logger, 1, config.SHUTDOWN_TIMEOUT_MS + EXIT_GRACE_MS),
    );
    const out = (line: string): void => void process.stdout.write(`${line}\n`);
    out(
      `sandbox ${sandbox.url} · service http://127.0.0.1:${service.httpPort} · admin http://127.0.0.1:${service.adminPort} · brokers ${config.KAFKA_BROKERS.join(',')}`,
    );
    if (config.console) out(`console http://127.0.0.1:${service.adminPort}/console/`);
    const { outcomes, unanswered } = await runDemo({
      ...demoClients(config),
      topics: topicNames(config.TOPIC_PREFIX),
      write: out,
      timeoutMs: options.demoTimeout,
      bulkRequests: options.demoBulk,
    });
    out(`demo: ${outcomes} outcomes received`);
    const stop = async (code: number): Promise<void> => {
      await service.stop();
      await sandbox.close();
      process.exit(code);
    };
    // Every demo request has its final outcome, or the run failed.
    if (options.exitAfterDemo) await stop(unanswered === 0 ? 0 : 1);
    else {
      out('service running; Ctrl-C stops it');
      onSignals(() => stop(0));
    }
  });

/** The demo's own Kafka client, silent, and a codec that reads the service's framing. */
function demoClients(config: Config): { kafka: Kafka; codec: ValueCodec } {
  const kafka = createKafka({
    clientId: 'demo',
    brokers: config.KAFKA_BROKERS,
    security: config.kafkaSecurity,
  });
  const codec = config.SCHEMA_REGISTRY_URL
    ? registryCodec(createRegistryClient(config.SCHEMA_REGISTRY_URL, config.registryAuth), new Map())
    : plainJsonCodec();
  return { kafka, codec };
}

function parsePositiveInt(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed <= 0)
    throw new InvalidArgumentError('must be a positive whole number');
  return parsed;
}

function parseNonNegativeInt(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0)
    throw new InvalidArgumentError('must be a whole number, 0 or more');
  return parsed;
}

let stopping = false;
async function shutdown(
  service: Service | undefined,
  logger: Logger,
  code: number,
  deadlineMs?: number,
): Promise<void> {
  if (stopping) return;
  stopping = true;
  // Armed before anything else of the stop, the log line included.
  if (deadlineMs !== undefined) {
    exitDeadline(deadlineMs, code, {
      exit: (exitCode) => process.exit(exitCode),
      onLate: (ms) => {
        logger.error({ ms }, 'the stop did not end in time; exiting without it');
      },
    });
  }
  logger.info({ code }, 'stopping');
  try {
    await service?.stop();
  } catch (error) {
    logger.error({ err: error }, 'stop failed');
    code = code || 1;
  }
  process.exit(code);
}

function onSignals(handler: () => Promise<void>): void {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => void handler());
}

program.parseAsync().catch((error: unknown) => {
  // commander has printed its message (or the help) already.
  if (error instanceof CommanderError) process.exit(error.exitCode === 0 ? 0 : BAD_FLAGS_EXIT_CODE);
  if (error instanceof CommandError) console.error(error.describe());
  else console.error(error);
  process.exit(error instanceof CommandError ? error.exitCode : 1);
});
