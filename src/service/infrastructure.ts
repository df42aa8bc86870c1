import type { Redis } from 'ioredis';
import { Kafka, logLevel, type Admin } from 'kafkajs';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { jsonSchemasByTopic } from '../contract/json-schemas.js';
import { kafkaConnectError } from '../kafka-connect-errors.js';
import { topicNames, type TopicNames } from '../contract/operations.js';
import { kafkaLogCreator } from '../observability/kafka-logger.js';
import { checkKeyMaterial } from '../at-rest/key-check.js';
import { checkKeysInUse, keepRecordingKeyUse } from '../at-rest/key-usage.js';
import { checkRedis, createRedisClient } from '../observability/redis-client.js';
import { createRegistryClient } from '../producers/registry-client.js';
import { SchemaIds } from '../producers/schema-ids.js';
import { contractTopics, ensureTopics, topicsKeptForever } from '../producers/topic-setup.js';
import { liveRegistryCodec, plainJsonCodec, type ValueCodec } from '../producers/value-codec.js';
import type { Closers } from './closers.js';
import { topicSettings } from './settings.js';

/** The connections every other part is built on: Kafka, the schema registry, Redis. */
export interface Infrastructure {
  kafka: Kafka;
  admin: Admin;
  topics: TopicNames;
  codec: ValueCodec;
  /** Absent without REDIS_URL: limits, dedupe and pending searches then live in memory. */
  redis: Redis | undefined;
  /** Checks that the registry answers and still gives our ids (readiness); absent without one. */
  registryCheck?: () => Promise<void>;
}

/** Connects and checks each in turn, so that start-up fails on the first one missing. */
export async function connectInfrastructure(
  config: Config,
  logger: Logger,
  closers: Closers,
): Promise<Infrastructure> {
  const topics = topicNames(config.TOPIC_PREFIX);
  const kafka = new Kafka({
    clientId: config.KAFKA_CLIENT_ID,
    brokers: [...config.KAFKA_BROKERS],
    requestTimeout: config.KAFKA_REQUEST_TIMEOUT_MS,
    logLevel: logLevel.WARN,
    logCreator: kafkaLogCreator(logger),
    ...config.kafkaSecurity,
  });
  const admin = kafka.admin();
  await admin.connect().catch((error: unknown) => {
    throw kafkaConnectError(error);
  });
  closers.add('kafka admin', () => admin.disconnect());
  const wanted = contractTopics(topics, topicSettings(config));
  const created = config.CREATE_TOPICS ? await ensureTopics(admin, wanted, { signal: closers.signal }) : [];
  if (created.length > 0) logger.info({ topics: created }, 'topics created');
  await warnOfTopicsKeptForever(
    admin,
    wanted.map((t) => t.topic).filter((name) => !created.includes(name)),
    logger,
  );
  const { codec, registryCheck } = await createCodec(config, logger);
  const redis = await connectRedis(config, logger, closers);
  return { kafka, admin, topics, codec, redis, ...(registryCheck ? { registryCheck } : {}) };
}

/**
 * Topics that existed before keep their own retention (never altered here); those kept forever
 * are named, since they hold personal data past any known time. Names only, never contents.
 */
async function warnOfTopicsKeptForever(admin: Admin, names: string[], logger: Logger): Promise<void> {
  try {
    const forever = await topicsKeptForever(admin, names);
    if (forever.length > 0) {
      logger.warn(
        { topics: forever },
        'existing topics keep their messages forever (retention.ms -1): they hold personal data; set a finite retention (docs/data-map.md)',
      );
    }
  } catch (error) {
    logger.warn({ err: error }, 'could not read the retention of existing topics');
  }
}

async function createCodec(
  config: Config,
  logger: Logger,
): Promise<{ codec: ValueCodec; registryCheck?: () => Promise<void> }> {
  const url = config.SCHEMA_REGISTRY_URL;
  if (url === undefined) return { codec: plainJsonCodec() };
  // A registry that accepts connections but never answers is down too.
  const timeoutMs = 10_000;
  const schemas = jsonSchemasByTopic(config.TOPIC_PREFIX);
  const ids = await SchemaIds.register({
    registration: {
      registryUrl: url,
      compatibility: config.SCHEMA_COMPATIBILITY,
      auth: config.registryAuth,
      timeoutMs,
    },
    schemas,
    createClient: () => createRegistryClient(url, config.registryAuth, timeoutMs),
    logger,
  });
  const codec = liveRegistryCodec(ids);
  await codec.prepare(schemas.keys());
  logger.info({ subjects: schemas.size, compatibility: config.SCHEMA_COMPATIBILITY }, 'schemas registered');
  return { codec, registryCheck: () => ids.check() };
}

async function connectRedis(config: Config, logger: Logger, closers: Closers): Promise<Redis | undefined> {
  if (config.REDIS_URL === undefined) return undefined;
  const redis = createRedisClient(config.REDIS_URL, logger, {
    // rediss:// turns TLS on (ioredis); the password may come from REDIS_PASSWORD_FILE.
    ...(config.REDIS_PASSWORD === undefined ? {} : { password: config.REDIS_PASSWORD }),
  });
  closers.add('redis', () => redis.quit());
  await checkRedis(redis);
  if (config.atRest) {
    const usage = {
      redis,
      topicPrefix: config.TOPIC_PREFIX,
      cipher: config.atRest.cipher,
      valueLifeMs: config.DEDUPE_WINDOW_SECONDS * 1000,
    };
    // Each key's bytes first (a different key under a known id), then the ids (a key dropped too early).
    await checkKeyMaterial(usage);
    await checkKeysInUse(usage);
    const recording = keepRecordingKeyUse(usage, (error) => {
      logger.warn({ err: error }, 'could not record the encryption key in use');
    });
    closers.add('key use', () => {
      recording.stop();
      return Promise.resolve();
    });
  } else {
    logger.warn(
      'Redis holds paid outcomes and pending searches in clear (ALLOW_PLAINTEXT_REDIS=true): for local use only',
    );
  }
  return redis;
}
