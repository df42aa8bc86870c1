import type { Logger } from 'pino';

/**
 * Sends Node's process warnings to the log instead of stderr: the service logs JSON lines only,
 * and an audit command's stderr carries its one-line summary and errors.
 */
export function routeProcessWarnings(logger: Logger): void {
  process.removeAllListeners('warning');
  process.on('warning', (warning) => {
    logger.warn({ name: warning.name, detail: warning.message }, 'node warning');
  });
}
