import { pino, type Logger, type LoggerOptions } from 'pino';

export type { Logger } from 'pino';

/**
 * Paths that may carry personal data or secrets. Logs never carry tax ids, names, images
 * or the API key (shared/contract.md, "Guarantees"); code logs ids and counts, and this list
 * is the safety net for objects that slip through.
 */
export const REDACTED_PATHS = [
  'apiKey',
  '*.apiKey',
  'authorization',
  '*.authorization',
  'headers.authorization',
  '*.headers.authorization',
  'params',
  '*.params',
  'request.params',
  'response',
  '*.response',
  'body',
  '*.body',
  'cpf',
  '*.cpf',
  'cnpj',
  '*.cnpj',
  'taxId',
  '*.taxId',
  'name',
  '*.name',
  'base64',
  '*.base64',
  'selfie',
  '*.selfie',
  'licensePlate',
  '*.licensePlate',
  'key',
  '*.key',
  'raw',
  '*.raw',
];

export interface LoggerSettings {
  level: string;
  /** Destination stream; pino's default (stdout) when absent. */
  destination?: NodeJS.WritableStream;
}

/**
 * Human-readable lines for `dev` (pino-pretty, a devDependency: absent from a production
 * install, where this falls back to JSON). Synchronous, so nothing is lost at process.exit.
 */
export async function createDevLogger(level: string): Promise<Logger> {
  try {
    const { default: pretty } = await import('pino-pretty');
    return createLogger({
      level,
      destination: pretty({ sync: true, ignore: 'pid,hostname,service', translateTime: 'SYS:HH:MM:ss.l' }),
    });
  } catch {
    return createLogger({ level });
  }
}

export function createLogger(settings: LoggerSettings): Logger {
  const options: LoggerOptions = {
    level: settings.level,
    base: { service: 'verification-gateway' },
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  return settings.destination ? pino(options, settings.destination) : pino(options);
}

/** The part of a logger that per-request code uses. */
export type RequestLogger = Pick<Logger, 'info' | 'warn' | 'error'>;

/**
 * A child logger made on its first line, not before: most requests log nothing, and pino's
 * child() (bindings serialised, redaction set up) cost about 3% of the CPU of a request at
 * thousands of requests a second.
 */
export function lazyChild(parent: Logger, bindings: () => Record<string, unknown>): RequestLogger {
  let child: Logger | undefined;
  const get = (): Logger => (child ??= parent.child(bindings()));
  return {
    info: (...args: Parameters<Logger['info']>) => {
      get().info(...args);
    },
    warn: (...args: Parameters<Logger['warn']>) => {
      get().warn(...args);
    },
    error: (...args: Parameters<Logger['error']>) => {
      get().error(...args);
    },
  };
}
