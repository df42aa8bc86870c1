import type { FastifyInstance } from 'fastify';
import type { Kafka } from '../kafka/client.js';
import type { LagAdmin } from '../observability/consumer-lag.js';
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
import type { ReplicaFigures, StatusSource } from './status.js';

/**
 * Registers the console on the admin listener (ADMIN_HOST, ADMIN_PORT), before it listens: a
 * server apart from the public webhook port, so nothing of the console is reachable there.
 * Returns what stops the console's own clients and heartbeat.
 */
export interface AttachDeps {
  kafka: Kafka;
  /**
   * The service group's committed offsets, as they are, and topics' ends
   * (Infrastructure.groupOffsets.latest).
   */
  groupOffsets: LagAdmin;
  redis: Redis | undefined;
  logger: Logger;
  figures: () => ReplicaFigures;
  /** Counts the values read back from Redis and refused (the service's metric). */
  countRefused: (store: RefusedValueStore, reason: RefusalReason) => void;
}

export async function attachConsole(
  app: FastifyInstance,
  config: Config,
  tokens: ConsoleTokens,
  deps: AttachDeps,
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
  const lag = lagReader(clients, deps.groupOffsets, config);
  const { status, stopHeartbeat } = replicaStatus(config, { ...deps, logger }, lag);
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
    status,
    logger,
    now: () => new Date(),
    secureCookies: config.CONSOLE_SECURE_COOKIES,
    redis: deps.redis,
    atRest: config.atRest,
    countRefused: deps.countRefused,
  });
  logger.info('console on the admin listener');
  return async () => {
    await stopHeartbeat();
    await auditLog.close();
    await clients.close();
  };
}

/**
 * The lag of the service's group: the topics from the console's admin, their ends and the
 * offsets as the service's own lag watch reads them (never through the admin client's controller
 * lookups: src/kafka/client.ts, GroupOffsetsReader).
 */
function lagReader(
  clients: AuditClients,
  groupOffsets: LagAdmin,
  config: Config,
): () => Promise<Record<string, number>> {
  const admin = {
    listTopics: (options?: { timeout?: number }) => clients.admin.listTopics(options),
    fetchTopicOffsets: (topic: string) => groupOffsets.fetchTopicOffsets(topic),
    fetchOffsets: groupOffsets.fetchOffsets.bind(groupOffsets),
  };
  return () => consumerLag(admin, config.KAFKA_GROUP_ID, topicNames(config.TOPIC_PREFIX));
}

/**
 * Every replica's figures: through Redis (this replica beats, sealed as the rest of what Redis
 * holds, and reads every replica's beats), else this replica's own.
 */
function replicaStatus(
  config: Config,
  deps: AttachDeps,
  lag: StatusSource['lag'],
): { status: StatusSource; stopHeartbeat: () => Promise<void> } {
  const { redis, logger } = deps;
  if (!redis) return { status: localStatusSource(deps.figures, lag), stopHeartbeat: () => Promise.resolve() };
  const onError = (error: unknown): void => {
    logger.warn({ err: error }, 'heartbeat failed');
  };
  return {
    status: redisStatusSource(redis, config.TOPIC_PREFIX, lag, {
      atRest: config.atRest,
      onRefused: reportRefusals('heartbeat', logger, deps.countRefused),
    }),
    stopHeartbeat: startHeartbeat(redis, config.TOPIC_PREFIX, deps.figures, onError, config.atRest),
  };
}
