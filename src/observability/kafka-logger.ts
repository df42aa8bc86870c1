import { logLevel, type LogEntry, type logCreator } from 'kafkajs';
import type { Logger } from 'pino';

/**
 * Answers a broker gives while it starts, moves a group coordinator, or elects the leaders of
 * topics just created. kafkajs logs each at error level and retries by itself; they are normal
 * at start-up (and the last one after every commit), so they go to debug.
 */
const TRANSIENT_COORDINATOR_ERRORS = [
  /coordinator is loading/i,
  /group coordinator is not available/i,
  /not the correct coordinator/i,
  /not the leader for that topic-partition/i,
  /no leader for this topic-partition/i,
  // Metadata of a topic just created, before every broker knows it.
  /does not host this topic-partition/i,
  // CONCURRENT_TRANSACTIONS: the previous transaction's markers are still being written; the
  // patched producer asks again within milliseconds (patch 006, patches/README.md).
  /another concurrent operation on the same transaction/i,
];

/** Routes kafkajs's own logs into pino (constant messages, context in the object). */
export function kafkaLogCreator(logger: Logger): logCreator {
  const child = logger.child({ component: 'kafkajs' });
  return () =>
    ({ level, log }: LogEntry) => {
      const { message, ...context } = log;
      if (isTransient(context)) child.debug(context, message);
      else if (level === logLevel.ERROR) child.error(context, message);
      else if (level === logLevel.WARN) child.warn(context, message);
      else if (level === logLevel.INFO) child.info(context, message);
      else child.debug(context, message);
    };
}

function isTransient(context: Record<string, unknown>): boolean {
  const error = context.error;
  return typeof error === 'string' && TRANSIENT_COORDINATOR_ERRORS.some((pattern) => pattern.test(error));
}
