import { pino, type Logger, type LoggerOptions } from 'pino';
import { withoutCommandArgs } from './redis-client.js';

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

export function createLogger(settings: LoggerSettings): Logger {
  const options: LoggerOptions = {
    level: settings.level,
    base: { service: 'verification-gateway' },
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    // A failed Redis command's error carries the command's arguments (cached outcomes).
    serializers: { err: (error: unknown) => withoutCommandArgs(pino.stdSerializers.err(error as Error)) },
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
