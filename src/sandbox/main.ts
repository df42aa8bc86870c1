import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { sandboxEnvironment } from '../config.js';
import { createLogger, type Logger } from '../observability/logger.js';
import { knobsFromEnv } from './knobs.js';
import { createSandbox, type Sandbox } from './server.js';

export type Env = Readonly<Record<string, string | undefined>>;

function portFrom(env: Env): number {
  const raw = env.SANDBOX_PORT ?? '8090';
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new Error(`SANDBOX_PORT: expected a port number 0..65535, got '${raw}'`);
  }
  return port;
}

/**
 * Starts the sandbox from environment variables: SANDBOX_HOST (127.0.0.1), SANDBOX_PORT (8090),
 * SANDBOX_API_KEY ('sandbox-key'), SANDBOX_LOG_LEVEL (info) and one variable per knob
 * (see KNOB_ENV in knobs.ts, e.g. SANDBOX_LATENCY_MS, SANDBOX_ERROR_RATE).
 */
export async function runSandboxFromEnv(env: Env = sandboxEnvironment(), logger?: Logger): Promise<Sandbox> {
  const log = logger ?? createLogger({ level: env.SANDBOX_LOG_LEVEL ?? 'info' });
  const sandbox = await createSandbox({
    host: env.SANDBOX_HOST ?? '127.0.0.1',
    port: portFrom(env),
    apiKey: env.SANDBOX_API_KEY ?? 'sandbox-key',
    knobs: knobsFromEnv(env),
    logger: log,
  });
  log.info({ url: sandbox.url, knobs: sandbox.knobs }, 'sandbox ready');
  return sandbox;
}

function isDirectRun(): boolean {
  const entry = process.argv[1];
  if (entry === undefined) return false;
  try {
    return realpathSync(entry) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isDirectRun()) {
  try {
    const sandbox = await runSandboxFromEnv();
    const stop = (): void => {
      sandbox.close().then(
        () => process.exit(0),
        (error: unknown) => {
          console.error(error);
          process.exit(1);
        },
      );
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  }
}
