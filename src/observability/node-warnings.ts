import type { Logger } from 'pino';

/**
 * kafkajs 2.2.4 computes negative timer delays in its request queue (kafkajs issue 1751).
 * Node ≥ 23 warns about them (TimeoutNegativeWarning) and, as earlier versions did silently,
 * runs the timer after 1 ms: the behaviour is unchanged, only the noise is new. This drops
 * exactly that warning, once noted at debug level, and sends every other warning to the log
 * instead of stderr.
 */
export function routeProcessWarnings(logger: Logger): void {
  process.removeAllListeners('warning');
  let noted = false;
  process.on('warning', (warning) => {
    if (warning.name === 'TimeoutNegativeWarning') {
      if (!noted)
        logger.debug({ issue: 'kafkajs#1751' }, 'ignoring TimeoutNegativeWarning from kafkajs timers');
      noted = true;
      return;
    }
    logger.warn({ name: warning.name, detail: warning.message }, 'node warning');
  });
}
