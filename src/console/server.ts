import type { FastifyInstance } from 'fastify';
import type { Kafka } from 'kafkajs';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { AuditConfig, Config, ConsoleTokens } from '../config.js';
import { openClients, type AuditClients } from '../audit/clients.js';
import { noProgress } from '../audit/progress.js';
import { topicNames } from '../contract/operations.js';
import { kafkaAuditLog } from '../audit/audit-log.js';
import { consumerLag } from './lag.js';
import { localStatusSource, redisStatusSource, startHeartbeat } from './heartbeat.js';
import { registerConsole } from './index.js';
import { reportRefusals, type RefusalReason, type RefusedValueStore } from '../at-rest/refusals.js';
import type { ReplicaFigures } from './status.js';

/**
 * Registers the console on the admin listener (ADMIN_HOST, ADMIN_PORT), before it listens: a
 * server apart from the public webhook port, so nothing of the console is reachable there.
 * Returns what stops the console's own clients and heartbeat.
 */
export async function attachConsole(
  app: FastifyInstance,
  config: Config,
  tokens: ConsoleTokens,
  deps: {
    kafka: Kafka;
    redis: Redis | undefined;
    logger: Logger;
    figures: () => ReplicaFigures;
    /** Counts the values read back from Redis and refused (the service's metric). */
    countRefused: (store: RefusedValueStore, reason: RefusalReason) => void;
  },
): Promise<() => Promise<void>> {
  // The service's own settings, TLS and SASL included, with a client id of the console's.
  const auditConfig: AuditConfig = Object.freeze({
    ...config,
    KAFKA_CLIENT_ID: `${config.KAFKA_CLIENT_ID}-console`,
    AUDIT_CONNECT_TIMEOUT_MS: 3_000,
  });
  const clients: AuditClients = await openClients(auditConfig);
  const logger = deps.logger.child({ component: 'console' });
  const auditLog = kafkaAuditLog(deps.kafka, config.TOPIC_PREFIX, logger);
  const stopHeartbeat = deps.redis
    ? startHeartbeat(deps.redis, config.TOPIC_PREFIX, deps.figures, (error) => {
        logger.warn({ err: error }, 'heartbeat failed');
      })
    : async (): Promise<void> => {
        // no Redis: no heartbeat to stop
      };
  const lag = (): Promise<Record<string, number>> =>
    consumerLag(clients.admin, config.KAFKA_GROUP_ID, topicNames(config.TOPIC_PREFIX));
  await registerConsole(app, {
    tokens,
    prefix: config.TOPIC_PREFIX,
    audit: () => ({
      config: auditConfig,
      clients,
      progress: noProgress,
      warn: (message) => {
        logger.warn(message);
      },
    }),
    auditLog,
    status: deps.redis
      ? redisStatusSource(deps.redis, config.TOPIC_PREFIX, lag, {
          onRefused: reportRefusals('heartbeat', logger, deps.countRefused),
        })
      : localStatusSource(deps.figures, lag),
    logger,
    now: () => new Date(),
    secureCookies: config.CONSOLE_SECURE_COOKIES,
    redis: deps.redis,
    atRest: config.atRest,
  });
  logger.info('console on the admin listener');
  return async () => {
    await stopHeartbeat();
    await auditLog.close();
    await clients.close();
  };
}
