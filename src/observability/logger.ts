import { pino, type Logger, type LoggerOptions } from 'pino';
import { PERSONAL_FIELDS } from './personal-fields.js';
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

/**
 * Field names redacted at any depth: pino's paths reach one level, and personal data nests
 * (a dead letter's `request.params.cpf`, a vendor response's `partes[].nome`...). Matched
 * without regard to case.
 */
export const REDACTED_KEYS: ReadonlySet<string> = new Set([
  ...PERSONAL_FIELDS,
  // Secrets, and whole structures that carry personal data or secrets.
  ...[
    'apiKey',
    'authorization',
    'headers',
    'params',
    'response',
    'body',
    'metadata',
    'key',
    'raw',
    'webhook',
  ].map((key) => key.toLowerCase()),
]);

const CENSOR = '[redacted]';
const MAX_LOG_DEPTH = 32;

/** A copy of a log object with every redacted field replaced, at any depth; errors serialised first. */
export function redactDeep(value: unknown, depth = 0, seen = new WeakSet<object>()): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (depth >= MAX_LOG_DEPTH) return '[too deep]';
  if (seen.has(value)) return '[circular]';
  seen.add(value);
  // An error under any key (not only `err`) loses its Redis command arguments first.
  if (value instanceof Error)
    return redactDeep(withoutCommandArgs(pino.stdSerializers.err(value)), depth, seen);
  if (Array.isArray(value)) return value.map((item: unknown) => redactDeep(item, depth + 1, seen));
  if (Buffer.isBuffer(value) || value instanceof Date) return value;
  const copy: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    copy[key] = REDACTED_KEYS.has(key.toLowerCase()) ? CENSOR : redactDeep(field, depth + 1, seen);
  }
  return copy;
}

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
    redact: { paths: REDACTED_PATHS, censor: CENSOR },
    formatters: { log: (object) => redactDeep(object) as Record<string, unknown> },
    // A failed Redis command's error carries the command's arguments (cached outcomes).
    serializers: { err: (error: unknown) => withoutCommandArgs(pino.stdSerializers.err(error as Error)) },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  // stdout written synchronously, on the main thread: pino's default writes through libuv's
  // pool, and a pool taken by the Kafka client's blocked calls once held back every line a
  // replica wrote, its last "stopping" included (src/threadpool.ts).
  return pino(options, settings.destination ?? pino.destination({ dest: 1, sync: true }));
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
