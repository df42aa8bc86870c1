import Fastify from 'fastify';
import type { Kafka } from 'kafkajs';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Config, ConsoleTokens } from '../config.js';
import { openClients, type AuditClients } from '../audit/clients.js';
import { noProgress } from '../audit/progress.js';
import { topicNames } from '../contract/operations.js';
import { kafkaAuditLog } from './audit-log.js';
import { consumerLag } from './lag.js';
import { localStatusSource, redisStatusSource, startHeartbeat } from './heartbeat.js';
import { registerConsole } from './index.js';
import type { ReplicaFigures } from './status.js';

/**
 * The admin listener (ADMIN_HOST, ADMIN_PORT) with the console on it: a server of its own, so
 * nothing of the console is ever reachable on the public webhook port.
 */
export interface AdminServer {
  readonly port: number;
  close(): Promise<void>;
}

export async function startAdminServer(
  config: Config,
  tokens: ConsoleTokens,
  deps: { kafka: Kafka; redis: Redis | undefined; logger: Logger; figures: () => ReplicaFigures },
): Promise<AdminServer> {
  const auditConfig = {
    KAFKA_BROKERS: config.KAFKA_BROKERS,
    KAFKA_CLIENT_ID: `${config.KAFKA_CLIENT_ID}-console`,
    KAFKA_GROUP_ID: config.KAFKA_GROUP_ID,
    TOPIC_PREFIX: config.TOPIC_PREFIX,
    SCHEMA_REGISTRY_URL: config.SCHEMA_REGISTRY_URL,
    AUDIT_CONNECT_TIMEOUT_MS: 3_000,
  };
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
  const app = Fastify({ logger: false, bodyLimit: 64 * 1024, requestTimeout: 120_000 });
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
      ? redisStatusSource(deps.redis, config.TOPIC_PREFIX, lag)
      : localStatusSource(deps.figures, lag),
    logger,
    now: () => new Date(),
  });
  await app.listen({ host: config.ADMIN_HOST, port: config.ADMIN_PORT });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.ADMIN_PORT;
  logger.info({ adminPort: port }, 'console listening');
  return {
    port,
    async close() {
      await app.close();
      await stopHeartbeat();
      await auditLog.close();
      await clients.close();
    },
  };
}
