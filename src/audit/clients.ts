import { Kafka, logLevel, type Admin } from 'kafkajs';
import type { AuditConfig } from '../config.js';
import { basicAuthHeader } from '../config-transport.js';
import { ConfigError } from '../errors.js';
import { kafkaConnectError } from '../kafka-connect-errors.js';
import { createRegistryClient } from '../producers/registry-client.js';
import { plainJsonCodec, registryCodec, type ValueCodec } from '../producers/value-codec.js';
import { AuditError } from './errors.js';

/**
 * The clients of one audit command. Timeouts and retries are short on purpose: an operator
 * with a wrong address or a broker that is down learns it in seconds, not after kafkajs'
 * default minutes of retrying.
 */
export interface AuditClients {
  kafka: Kafka;
  admin: Admin;
  /** Decodes framed values through the registry when one is configured, plain JSON always. */
  codec: ValueCodec;
  close(): Promise<void>;
}

export async function openClients(config: AuditConfig): Promise<AuditClients> {
  const codec = await openCodec(config);
  const kafka = new Kafka({
    clientId: `${config.KAFKA_CLIENT_ID}-audit`,
    brokers: [...config.KAFKA_BROKERS],
    logLevel: logLevel.NOTHING,
    connectionTimeout: config.AUDIT_CONNECT_TIMEOUT_MS,
    retry: { retries: 2, initialRetryTime: 200, maxRetryTime: 1_000 },
    ...config.kafkaSecurity,
  });
  const admin = kafka.admin();
  try {
    await admin.connect();
    await admin.describeCluster();
  } catch (error) {
    await admin.disconnect().catch(() => undefined);
    const explained = kafkaConnectError(error);
    if (explained instanceof ConfigError) throw explained;
    throw new AuditError(
      'UNREACHABLE',
      `cannot reach Kafka at ${config.KAFKA_BROKERS.join(',')}: ${reasonOf(error)}`,
      { cause: error },
    );
  }
  return { kafka, admin, codec, close: () => admin.disconnect() };
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

function reasonOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause =
    error.cause instanceof Error && !error.message.includes(error.cause.message)
      ? `: ${error.cause.message}`
      : '';
  return `${error.message}${cause}`;
}
