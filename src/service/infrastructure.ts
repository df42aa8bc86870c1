import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { jsonSchemasByTopic } from '../contract/json-schemas.js';
import { kafkaConnectError } from '../kafka-connect-errors.js';
import {
  createKafka,
  openGroupOffsetsReader,
  recentClientErrors,
  type Admin,
  type Kafka,
  type KafkaClientSettings,
  type GroupOffsetsReader,
  type OffsetsAdmin,
} from '../kafka/client.js';
import { topicNames, type TopicNames } from '../contract/operations.js';
import { checkKeyMaterial } from '../at-rest/key-check.js';
import { checkKeysInUse, keepRecordingKeyUse } from '../at-rest/key-usage.js';
import { checkRedis, createRedisClient } from '../observability/redis-client.js';
import { createRegistryClient } from '../producers/registry-client.js';
import { SchemaIds } from '../producers/schema-ids.js';
import { contractTopics, ensureTopics } from '../producers/topic-setup.js';
import { liveRegistryCodec, plainJsonCodec, type ValueCodec } from '../producers/value-codec.js';
import type { Closers } from './closers.js';
import { topicSettings } from './settings.js';

/** The connections every other part is built on: Kafka, the schema registry, Redis. */
export interface Infrastructure {
  kafka: Kafka;
  admin: Admin;
  /**
   * The service group's committed offsets, read as its consumer reads them (never through the
   * admin API: src/kafka/client.ts, openGroupOffsetsReader): `stable` with require_stable (the
   * runtime), `latest` as they are (the lag, the vehicle-search commit check, the console).
   * `latest` also reads topics' partitions and ends (the lag, the readiness check) without the
   * admin client's controller lookups.
   */
  groupOffsets: { stable: OffsetsAdmin; latest: GroupOffsetsReader };
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
  const settings: KafkaClientSettings = {
    clientId: config.KAFKA_CLIENT_ID,
    brokers: config.KAFKA_BROKERS,
    requestTimeoutMs: config.KAFKA_REQUEST_TIMEOUT_MS,
    logger,
    security: config.kafkaSecurity,
    ...(config.KAFKA_CLIENT_DEBUG === undefined ? {} : { debug: config.KAFKA_CLIENT_DEBUG }),
  };
  const kafka = createKafka(settings);
  const admin = kafka.admin();
  // The admin client connects lazily: a first request shows whether the brokers answer (and
  // take our TLS and SASL settings).
  await admin.connect();
  await admin.listTopics().catch(async (error: unknown) => {
    await admin.disconnect().catch(() => undefined);
    throw kafkaConnectError(error, recentClientErrors(kafka));
  });
  closers.add('kafka admin', () => admin.disconnect());
  const wanted = contractTopics(topics, topicSettings(config));
  const created = config.CREATE_TOPICS ? await ensureTopics(admin, wanted, { signal: closers.signal }) : [];
  if (created.length > 0) logger.info({ topics: created }, 'topics created');
  const groupOffsets = await openGroupOffsets(config.KAFKA_GROUP_ID, settings, closers);
  const { codec, registryCheck } = await createCodec(config, logger);
  const redis = await connectRedis(config, logger, closers);
  return { kafka, admin, groupOffsets, topics, codec, redis, ...(registryCheck ? { registryCheck } : {}) };
}

/** How long one read of the group's stable offsets waits for a transaction that holds them. */
const STABLE_READ_MS = 2_000;

async function openGroupOffsets(
  groupId: string,
  settings: KafkaClientSettings,
  closers: Closers,
): Promise<Infrastructure['groupOffsets']> {
  const reader = (stable: boolean) =>
    openGroupOffsetsReader(settings, groupId, {
      stable,
      timeoutMs: stable ? STABLE_READ_MS : 10_000,
    });
  const [stable, latest] = await Promise.all([reader(true), reader(false)]);
  closers.add('group offsets', async () => {
    await Promise.all([stable.close(), latest.close()]);
  });
  return { stable, latest };
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
