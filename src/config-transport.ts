import ipaddr from 'ipaddr.js';
import { z } from 'zod';
import { bool, unlessBlank } from './config-fields.js';
import { readSettingFile } from './config-secrets.js';
import { ConfigError } from './errors.js';

/**
 * Transport security settings: TLS and SASL to Kafka, basic auth to the schema registry, the
 * Redis password. Shared by the service and the audit commands (config.ts); the files they
 * name are read once at start-up, so a wrong path stops it with the setting's name.
 */
const optionalText = unlessBlank(z.string().min(1));

export const transportEnvShape = {
  KAFKA_SSL: bool(false),
  KAFKA_SSL_CA_FILE: optionalText,
  KAFKA_SSL_CERT_FILE: optionalText,
  KAFKA_SSL_KEY_FILE: optionalText,
  KAFKA_SASL_MECHANISM: unlessBlank(z.enum(['plain', 'scram-sha-256', 'scram-sha-512'])),
  KAFKA_SASL_USERNAME: optionalText,
  KAFKA_SASL_PASSWORD: optionalText,
  SCHEMA_REGISTRY_USERNAME: optionalText,
  SCHEMA_REGISTRY_PASSWORD: optionalText,
  REDIS_PASSWORD: optionalText,
  /**
   * For local use only: SASL without TLS, basic auth to an http schema registry, an http
   * WEBHOOK_PUBLIC_URL, a Redis password over redis:// to another host. Each sends credentials
   * or personal data in clear.
   */
  ALLOW_INSECURE_TRANSPORT: bool(false),
};

type TransportEnv = z.infer<z.ZodObject<typeof transportEnvShape>>;

/** TLS to the brokers: `true` trusts the system's CAs; files are PEM text read at start-up. */
export type KafkaTls = true | { ca?: string; cert?: string; key?: string };

export interface KafkaSasl {
  mechanism: 'plain' | 'scram-sha-256' | 'scram-sha-512';
  username: string;
  password: string;
}

export interface KafkaSecurity {
  ssl?: KafkaTls;
  sasl?: KafkaSasl;
}

export interface RegistryAuth {
  username: string;
  password: string;
}

/** The Kafka clients' TLS and SASL settings (src/kafka/client.ts); files are read here. */
export function kafkaSecurity(env: TransportEnv): KafkaSecurity {
  const security: KafkaSecurity = {};
  const files = {
    ca: env.KAFKA_SSL_CA_FILE,
    cert: env.KAFKA_SSL_CERT_FILE,
    key: env.KAFKA_SSL_KEY_FILE,
  };
  if ((files.cert === undefined) !== (files.key === undefined)) {
    throw new ConfigError(
      files.cert === undefined ? 'KAFKA_SSL_CERT_FILE' : 'KAFKA_SSL_KEY_FILE',
      'a client certificate needs both KAFKA_SSL_CERT_FILE and KAFKA_SSL_KEY_FILE',
    );
  }
  const given = Object.entries(files).filter((entry): entry is [string, string] => entry[1] !== undefined);
  if (given.length > 0 && !env.KAFKA_SSL) {
    throw new ConfigError('KAFKA_SSL', 'must be true when KAFKA_SSL_CA_FILE, _CERT_FILE or _KEY_FILE is set');
  }
  if (env.KAFKA_SSL) {
    security.ssl =
      given.length === 0
        ? true
        : Object.fromEntries(
            given.map(([name, path]) => [
              name,
              readSettingFile(`KAFKA_SSL_${name.toUpperCase()}_FILE`, path),
            ]),
          );
  }
  if (env.KAFKA_SASL_MECHANISM !== undefined) {
    const { KAFKA_SASL_USERNAME: username, KAFKA_SASL_PASSWORD: password } = env;
    if (username === undefined)
      throw new ConfigError('KAFKA_SASL_USERNAME', 'is required with KAFKA_SASL_MECHANISM');
    if (password === undefined) {
      throw new ConfigError(
        'KAFKA_SASL_PASSWORD',
        'is required with KAFKA_SASL_MECHANISM (or KAFKA_SASL_PASSWORD_FILE)',
      );
    }
    if (!env.KAFKA_SSL && !env.ALLOW_INSECURE_TRANSPORT) {
      throw new ConfigError(
        'KAFKA_SASL_MECHANISM',
        `${env.KAFKA_SASL_MECHANISM} without TLS exposes the login and every message: set KAFKA_SSL=true (ALLOW_INSECURE_TRANSPORT=true allows it, for local use)`,
      );
    }
    security.sasl = { mechanism: env.KAFKA_SASL_MECHANISM, username, password };
  }
  return security;
}

export function registryAuth(
  env: TransportEnv & { SCHEMA_REGISTRY_URL?: string | undefined },
): RegistryAuth | undefined {
  const { SCHEMA_REGISTRY_USERNAME: username, SCHEMA_REGISTRY_PASSWORD: password } = env;
  if (username === undefined && password === undefined) return undefined;
  if (username === undefined || password === undefined) {
    throw new ConfigError(
      username === undefined ? 'SCHEMA_REGISTRY_USERNAME' : 'SCHEMA_REGISTRY_PASSWORD',
      'basic auth needs both SCHEMA_REGISTRY_USERNAME and SCHEMA_REGISTRY_PASSWORD',
    );
  }
  if (!env.ALLOW_INSECURE_TRANSPORT && env.SCHEMA_REGISTRY_URL?.startsWith('http:') === true) {
    throw new ConfigError(
      'SCHEMA_REGISTRY_URL',
      'must be https with basic auth, which would send the password in clear (ALLOW_INSECURE_TRANSPORT=true allows it, for local use)',
    );
  }
  return { username, password };
}

/**
 * A Redis password travels in clear over `redis://` (the AUTH command, then every value):
 * refused unless the server is on this host (loopback) or ALLOW_INSECURE_TRANSPORT says so.
 * `passwordSetting` is the name the password was given under (`REDIS_PASSWORD` or its `_FILE`).
 * Messages never quote the URL, which may hold the password.
 */
export function checkRedisTransport(
  env: Pick<TransportEnv, 'REDIS_PASSWORD' | 'ALLOW_INSECURE_TRANSPORT'> & { REDIS_URL?: string | undefined },
  passwordSetting: string,
): void {
  if (env.REDIS_URL === undefined || env.ALLOW_INSECURE_TRANSPORT) return;
  const url = new URL(env.REDIS_URL);
  if (url.protocol !== 'redis:' || isLoopback(url.hostname)) return;
  const fix = 'use rediss:// (TLS), or ALLOW_INSECURE_TRANSPORT=true for local use';
  if (url.password !== '')
    throw new ConfigError('REDIS_URL', `holds a password sent in clear over redis://: ${fix}`);
  if (env.REDIS_PASSWORD !== undefined)
    throw new ConfigError(passwordSetting, `is sent in clear over redis:// to ${url.hostname}: ${fix}`);
}

function isLoopback(hostname: string): boolean {
  if (hostname === 'localhost') return true;
  const bare = hostname.replace(/^\[(.*)\]$/, '$1');
  return ipaddr.isValid(bare) && ipaddr.process(bare).range() === 'loopback';
}

/** `Authorization` header of the registry's REST calls. */
export function basicAuthHeader(auth: RegistryAuth | undefined): Record<string, string> {
  if (auth === undefined) return {};
  return { authorization: `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString('base64')}` };
}
