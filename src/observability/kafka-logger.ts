import { logLevel, type LogEntry, type logCreator } from 'kafkajs';
import type { Logger } from 'pino';

/** Routes kafkajs's own logs into pino (constant messages, context in the object). */
export function kafkaLogCreator(logger: Logger): logCreator {
  const child = logger.child({ component: 'kafkajs' });
  return () =>
    ({ level, log }: LogEntry) => {
      const { message, ...context } = log;
      if (level === logLevel.ERROR) child.error(context, message);
      else if (level === logLevel.WARN) child.warn(context, message);
      else if (level === logLevel.INFO) child.info(context, message);
      else child.debug(context, message);
    };
}
