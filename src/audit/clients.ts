import type { AuditConfig } from '../config.js';
import { basicAuthHeader } from '../config-transport.js';
import { ConfigError } from '../errors.js';
import { kafkaConnectError } from '../kafka-connect-errors.js';
import {
  createKafka,
  createPartitionConsumer,
  recentClientErrors,
  type Admin,
  type Kafka,
  type KafkaClientSettings,
} from '../kafka/client.js';
import type { RangeConsumer } from './reader.js';
import { createRegistryClient } from '../producers/registry-client.js';
import { plainJsonCodec, registryCodec, type ValueCodec } from '../producers/value-codec.js';
import { AuditError } from './errors.js';

/**
 * The clients of one audit command. Timeouts and retries are short on purpose: an operator
 * with a wrong address or a broker that is down learns it in seconds, not after minutes of
 * retrying.
 */
export interface AuditClients {
  kafka: Kafka;
  admin: Admin;
  /** A consumer of given partitions over given offsets (audit/reader.ts), under `groupId`. */
  openConsumer(groupId: string): RangeConsumer;
  /** Decodes framed values through the registry when one is configured, plain JSON always. */
  codec: ValueCodec;
  close(): Promise<void>;
}

export async function openClients(config: AuditConfig): Promise<AuditClients> {
  const codec = await openCodec(config);
  const settings: KafkaClientSettings = {
    clientId: `${config.KAFKA_CLIENT_ID}-audit`,
    brokers: config.KAFKA_BROKERS,
    connectionTimeoutMs: config.AUDIT_CONNECT_TIMEOUT_MS,
    requestTimeoutMs: Math.max(config.AUDIT_CONNECT_TIMEOUT_MS, 10_000),
    retry: { retries: 2, initialRetryTime: 200, maxRetryTime: 1_000 },
    security: config.kafkaSecurity,
  };
  const kafka = createKafka(settings);
  const admin = kafka.admin();
  try {
    await admin.connect();
    // The client connects lazily: a first request shows whether the brokers answer.
    await admin.listTopics({ timeout: config.AUDIT_CONNECT_TIMEOUT_MS });
  } catch (error) {
    await admin.disconnect().catch(() => undefined);
    const explained = kafkaConnectError(error, recentClientErrors(kafka));
    if (explained instanceof ConfigError) throw explained;
    throw new AuditError(
      'UNREACHABLE',
      `cannot reach Kafka at ${config.KAFKA_BROKERS.join(',')}: ${reasonOf(error)}${lastClientError(kafka)}`,
      { cause: error },
    );
  }
  return {
    kafka,
    admin,
    openConsumer: (groupId) => createPartitionConsumer(settings, groupId),
    codec,
    close: () => admin.disconnect(),
  };
}

async function openCodec(config: AuditConfig): Promise<ValueCodec> {
  const url = config.SCHEMA_REGISTRY_URL;
  if (url === undefined) return plainJsonCodec();
  try {
    const response = await fetch(`${url.replace(/\/$/, '')}/subjects`, {
      signal: AbortSignal.timeout(config.AUDIT_CONNECT_TIMEOUT_MS),
      headers: basicAuthHeader(config.registryAuth),
    });
    await response.body?.cancel();
    if (!response.ok) throw new Error(`GET /subjects answered ${response.status}`);
  } catch (error) {
    throw new AuditError('UNREACHABLE', `cannot reach the schema registry at ${url}: ${reasonOf(error)}`, {
      cause: error,
    });
  }
  // Decoding only: no schema ids are needed to read (they come with each framed value).
  return registryCodec(createRegistryClient(url, config.registryAuth), new Map());
}

/** The client's own last word on why (librdkafka: "Connect to ... failed: Connection refused"). */
function lastClientError(kafka: Kafka): string {
  const line = recentClientErrors(kafka).at(-1);
  if (line === undefined) return '';
  // Without librdkafka's thread and broker prefixes: "[thrd:...]: host:port/bootstrap: ".
  return ` (${line.replace(/^\[thrd:[^\]]*\]:\s*/, '').replace(/^\S+\/(bootstrap|\d+):\s*/, '')})`;
}

function reasonOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause =
    error.cause instanceof Error && !error.message.includes(error.cause.message)
      ? `: ${error.cause.message}`
      : '';
  return `${error.message}${cause}`;
}
