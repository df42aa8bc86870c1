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

export function createLogger(settings: LoggerSettings): Logger {
  const options: LoggerOptions = {
    level: settings.level,
    base: { service: 'verification-gateway' },
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  return settings.destination ? pino(options, settings.destination) : pino(options);
}
