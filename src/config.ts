import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { ConfigError } from './errors.js';
import { OPERATIONS, type Operation } from './contract/operations.js';
import { WEBHOOK_METHODS } from './contract/vocabulary.js';
import {
  BASE_URL_RULE,
  checkApiKey,
  DEFAULT_VENDOR_CONNECTIONS,
  isBaseUrl,
  MAX_VENDOR_CONNECTIONS,
} from './vendor-api/options.js';
import { isAllowListEntry } from './vendor-api/selfie-guard.js';
import { SECRET_SETTINGS, settingGiven, withSecretFiles } from './config-secrets.js';
import { readConsoleTokens, type ConsoleTokens, type TokenSettings } from './config-console.js';
import { readAtRest, type AtRest } from './config-at-rest.js';
import {
  bool,
  consoleToken,
  strongSecret,
  host,
  int,
  limitsJson,
  numberOr,
  optionalInt,
  optionalUrl,
  finiteRetentionMs,
  port,
  unlessBlank,
} from './config-fields.js';
import {
  checkRedisTransport,
  kafkaSecurity,
  registryAuth,
  transportEnvShape,
  type KafkaSecurity,
  type RegistryAuth,
} from './config-transport.js';

/**
 * The only reader of process.env. One zod schema, one frozen object; a bad setting stops
 * start-up with a message naming it (ConfigError).
 */

/** Output topics are created with max.message.bytes of 2 MiB (topic-setup.ts); headers need room. */
const RESULT_MAX_BYTES_LIMIT = 2 * 1024 * 1024 - 64 * 1024;
const DAY_MS = 24 * 3600 * 1000;
/** KAFKA_SESSION_TIMEOUT_MS by default: a group coordinator's failover fits in it (docs/guarantees.md). */
export const DEFAULT_KAFKA_SESSION_TIMEOUT_MS = 30_000;

const envSchema = z.object({
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  KAFKA_BROKERS: z
    .string({ error: 'is required (comma-separated host:port list)' })
    .min(1, 'is required (comma-separated host:port list)')
    .transform((s) => s.split(',').map((b) => b.trim()))
    .pipe(z.array(z.string().regex(/^[^:\s]+:\d+$/, 'each broker must be host:port')).min(1)),
  KAFKA_CLIENT_ID: z.string().min(1).default('verification-gateway'),
  KAFKA_GROUP_ID: z.string().min(1).default('verification-gateway'),
  /** How long the group waits for a silent member before moving its partitions. */
  KAFKA_SESSION_TIMEOUT_MS: int(6_000, DEFAULT_KAFKA_SESSION_TIMEOUT_MS),
  /**
   * How long a request to a broker may go unanswered before the client calls it failed (and, for
   * a transactional request, the producer is re-initialised: see transactional-producer.ts).
   */
  KAFKA_REQUEST_TIMEOUT_MS: int(1_000, 30_000),
  /**
   * The process's transactional id; by default `<group>.<hostname>.<pid>`: stable across a
   * container's restarts in its pod (pid 1), distinct for processes sharing a host. Must be
   * unique among running replicas.
   */
  KAFKA_TRANSACTIONAL_ID: z.string().min(1).optional(),
  /**
   * librdkafka's debug contexts for every client (e.g. `eos,cgrp`), written at LOG_LEVEL=debug:
   * to see what the client does around a fault. Unset, none.
   */
  KAFKA_CLIENT_DEBUG: unlessBlank(
    z
      .string()
      .regex(/^[a-z]+(,[a-z]+)*$/, 'must be a comma-separated list of librdkafka debug contexts (e.g. eos,cgrp)'),
  ),
  /** How long a replica that vanished mid-transaction holds its partitions' offsets unstable. */
  KAFKA_TRANSACTION_TIMEOUT_MS: int(1_000, 30_000),
  TOPIC_PREFIX: z
    .string()
    .regex(/^[a-zA-Z0-9._-]+$/, 'may hold letters, digits, dot, underscore and hyphen only')
    .default('verification'),
  TOPIC_PARTITIONS: int(1, 3),
  TOPIC_REPLICATION_FACTOR: int(1, 1),
  REQUEST_RETENTION_MS: finiteRetentionMs(7 * DAY_MS),
  /** Results, errors and vehicle-search events: personal data, kept for a known time. */
  OUTPUT_RETENTION_MS: finiteRetentionMs(30 * DAY_MS),
  /** Audit events (who revealed, redrove, erased what): longer than the outputs they account for. */
  AUDIT_RETENTION_MS: finiteRetentionMs(400 * DAY_MS),
  SCHEMA_REGISTRY_URL: optionalUrl,
  SCHEMA_COMPATIBILITY: z
    .enum([
      'BACKWARD',
      'BACKWARD_TRANSITIVE',
      'FORWARD',
      'FORWARD_TRANSITIVE',
      'FULL',
      'FULL_TRANSITIVE',
      'NONE',
    ])
    .default('BACKWARD'),
  REDIS_URL: unlessBlank(z.url({ protocol: /^rediss?$/ })),
  /** Keys sealing what Redis holds (config-at-rest.ts); required with REDIS_URL unless ALLOW_PLAINTEXT_REDIS. */
  REDIS_ENCRYPTION_KEYS: z.string().min(1, 'must not be blank').optional(),
  /** HMAC key of the subject index that erasure finds a person by. */
  REDIS_INDEX_KEY: z.string().min(1, 'must not be blank').optional(),
  /** Paid outcomes and pending searches in clear in Redis: for local use only. */
  ALLOW_PLAINTEXT_REDIS: bool(false),
  /**
   * With the keys: until when values an earlier version wrote in clear are still read (an ISO
   * 8601 time, within DEDUPE_WINDOW_SECONDS of start-up); unset, none is (config-at-rest.ts).
   */
  REDIS_CLEAR_VALUES_UNTIL: unlessBlank(
    z.iso
      .datetime({
        offset: true,
        error: 'must be an ISO 8601 time with its offset, e.g. 2026-12-01T12:00:00Z',
      })
      .transform((text) => Date.parse(text)),
  ),
  // The client's own rules (vendor-api/options.ts), checked here to name the setting before start-up.
  VENDOR_BASE_URL: z
    .string({ error: 'is required: the vendor API base URL, http(s)' })
    .refine(isBaseUrl, BASE_URL_RULE),
  VENDOR_API_KEY: z.string({ error: 'is required' }).min(1, 'is required').superRefine(checkApiKey),
  /** Host names or CIDRs a selfie URL may reach besides public unicast addresses (and by http). */
  SELFIE_URL_ALLOW: z
    .string()
    .default('')
    .transform((s) =>
      s
        .split(',')
        .map((e) => e.trim())
        .filter((e) => e !== ''),
    )
    .pipe(z.array(z.string().refine(isAllowListEntry, 'each entry must be a host name or a CIDR'))),
  VENDOR_CONNECT_TIMEOUT_MS: int(1, 5_000),
  VENDOR_TIMEOUT_MS: int(1, 30_000),
  VENDOR_MAX_RESPONSE_BYTES: int(1, 16 * 1024 * 1024),
  VENDOR_CONNECTIONS: numberOr(
    z.coerce.number().int().min(1).max(MAX_VENDOR_CONNECTIONS),
    DEFAULT_VENDOR_CONNECTIONS,
  ),
  VENDOR_RATE_PER_SECOND: numberOr(z.coerce.number().positive(), 10),
  VENDOR_MAX_CONCURRENT: int(1, 20),
  /** Per-operation overrides, JSON: {"vehicle":{"ratePerSecond":50,"maxConcurrent":10,"spendCapPerHour":1000}}. */
  VENDOR_LIMITS: limitsJson,
  MAX_IN_FLIGHT: int(1, 500),
  /** The fraction of each operation's limit bulk-lane calls get while they wait (limits/lane-gate.ts). */
  LANE_BULK_MIN_SHARE: numberOr(z.coerce.number().min(0).lt(1), 0.1),
  /** Uncommitted bulk-lane requests one operation's partitions may hold per replica; default 2 s of its rate. */
  LANE_BULK_QUEUE: optionalInt(1),
  PARTITION_WINDOW: int(1, 1000),
  /** Uncommitted requests of all the replica's partitions together: what is held stays bounded at any partition count. */
  REPLICA_WINDOW: int(1, 5000),
  /** Old-generation growth past the live heap before a full collection; 0: V8's own (up to 300%). */
  HEAP_GROWTH_PERCENT: numberOr(z.coerce.number().int().min(0).max(300), 50),
  COMMIT_INTERVAL_MS: int(0, 10),
  /**
   * The longest spacing between commit rounds, reached behind requests that took a second or
   * more; by default 100 ms, or COMMIT_INTERVAL_MS when that is longer (commitSpacing).
   */
  COMMIT_MAX_INTERVAL_MS: optionalInt(0),
  /**
   * The longest a paid vendor answer, once stored, waits for the answers arriving just after it,
   * so that they go on together (requests/gathering.ts); a tenth of the time the request had
   * taken, up to this; a hold under 1 ms is none.
   * 0: each goes on at once.
   */
  ANSWER_GATHER_MAX_MS: numberOr(z.coerce.number().int().min(0).max(1_000), 20),
  RETRY_MAX_ATTEMPTS: int(1, 5),
  RETRY_BASE_MS: int(1, 250),
  RETRY_MAX_DELAY_MS: int(1, 15_000),
  RETRY_BUDGET_MS: int(1, 120_000),
  BREAKER_FAILURE_THRESHOLD: int(1, 10),
  BREAKER_COOLDOWN_MS: int(1, 30_000),
  DEDUPE_WINDOW_SECONDS: int(1, 7 * 24 * 3600),
  /**
   * Paid outcomes the one-instance mode (no REDIS_URL) keeps in memory, the oldest dropped
   * first beyond it: memory bounded whatever the dedupe window.
   */
  MEMORY_DEDUPE_MAX_ENTRIES: numberOr(z.coerce.number().int().min(1_000).max(10_000_000), 50_000),
  MAX_REQUEST_BYTES: int(1, 2 * 1024 * 1024),
  /** Deeper request JSON is dead-lettered unparsed: deep nesting overflows the stack of every parser. */
  MAX_JSON_DEPTH: numberOr(z.coerce.number().int().min(1).max(1_000), 64),
  RESULT_MAX_BYTES: numberOr(
    z.coerce
      .number()
      .int()
      .min(1024)
      .max(
        RESULT_MAX_BYTES_LIMIT,
        "must leave room for headers within the output topics' 2 MiB message limit",
      ),
    900 * 1024,
  ),
  HTTP_HOST: host('0.0.0.0'),
  HTTP_PORT: port(8080),
  /**
   * Health, readiness, metrics and the console: a listener apart from the public webhook sink,
   * on loopback unless set (the chart sets 0.0.0.0, the pod's address).
   */
  ADMIN_HOST: host('127.0.0.1'),
  ADMIN_PORT: port(9090),
  /** How often the consumer lag metric is read from the brokers. */
  CONSUMER_LAG_INTERVAL_MS: int(100, 15_000),
  /**
   * How often /readyz's dependencies (broker, registry, Redis) are checked, each within the
   * same time (at most 3 s); the registry check also confirms the schema ids still name ours.
   */
  DEPENDENCY_CHECK_INTERVAL_MS: int(200, 5_000),
  WEBHOOK_PUBLIC_URL: optionalUrl,
  WEBHOOK_SECRET: strongSecret.optional(),
  /** How the vendor calls the sink back (vendor-api.md, "POST /vehicles-async/v3"). The sink accepts all four. */
  WEBHOOK_METHOD: z.enum(WEBHOOK_METHODS).default('POST'),
  /** One webhook-driven vendor GET per search per interval: replayed calls cost nothing more. */
  WEBHOOK_FETCH_INTERVAL_MS: int(1, 10_000),
  /** Webhook calls handled at once per replica; more get 503. */
  WEBHOOK_MAX_CONCURRENT: int(1, 32),
  /** Webhook calls per second per replica; more get 429. */
  WEBHOOK_RATE_PER_SECOND: int(1, 200),
  VEHICLE_SEARCH_EXPIRY_MS: int(1, 30 * 60 * 1000),
  /** First poll of a search without webhook news; later polls back off exponentially. */
  VEHICLE_SEARCH_POLL_MS: int(1, 30_000),
  /** Upper bound of the poll backoff. */
  VEHICLE_SEARCH_POLL_MAX_MS: int(1, 5 * 60 * 1000),
  /** Lifetime of a replica's claim on a search (fetch + publish); a crashed owner's claim lapses after it. */
  VEHICLE_SEARCH_CLAIM_TTL_MS: int(1_000, 60_000),
  SHUTDOWN_TIMEOUT_MS: int(1, 25_000),
  CREATE_TOPICS: bool(true),
  /** OpenTelemetry's standard variables; traces are exported only when an exporter is configured. */
  OTEL_SDK_DISABLED: bool(false),
  OTEL_SERVICE_NAME: z.string().min(1).default('verification-gateway'),
  OTEL_TRACES_EXPORTER: z.enum(['otlp', 'none']).optional(),
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalUrl,
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: optionalUrl,
  /** http to the vendor is for the sandbox and tests only: the API key and personal data travel on it. */
  ALLOW_INSECURE_VENDOR: bool(false),
  ...transportEnvShape,
  /** The console is off unless a read-only token is given, in the variable or a file. */
  CONSOLE_TOKEN: consoleToken,
  /** The operator token may also reveal personal data and redrive. */
  CONSOLE_OPERATOR_TOKEN: consoleToken,
  /** `name:role:token` lines, one per operator: audit events name who acted (config-console.ts). */
  CONSOLE_TOKENS: unlessBlank(z.string().min(1)),
  /** The console's cookies carry Secure: set it where browsers reach the admin listener over https. */
  CONSOLE_SECURE_COOKIES: bool(false),
  /** Only CONSOLE_TOKENS' named tokens log in: audit events then always name a person. */
  CONSOLE_REQUIRE_NAMED_TOKENS: bool(false),
});

export type Env = z.infer<typeof envSchema>;

/** Every variable the service reads its settings from, a secret's `<NAME>_FILE` included. */
export const SETTING_NAMES: readonly string[] = [
  ...Object.keys(envSchema.shape),
  ...SECRET_SETTINGS.map((name) => `${name}_FILE`),
];
export type { ConsoleTokens } from './config-console.js';

export interface OperationLimits {
  ratePerSecond: number;
  maxConcurrent: number;
  spendCapPerHour?: number;
}

/** Kafka TLS/SASL options and registry credentials, built from the transport settings. */
export interface TransportSecurity {
  kafkaSecurity: Readonly<KafkaSecurity>;
  registryAuth: Readonly<RegistryAuth> | undefined;
}

type AtRestSettings = 'REDIS_ENCRYPTION_KEYS' | 'REDIS_INDEX_KEY' | 'REDIS_CLEAR_VALUES_UNTIL';

export type Config = Readonly<
  Omit<Env, 'VENDOR_LIMITS' | TokenSettings | AtRestSettings> & {
    limits: Readonly<Record<Operation, Readonly<OperationLimits>>>;
    console: Readonly<ConsoleTokens> | undefined;
    /** Encryption at rest and the subject index; absent without Redis or with ALLOW_PLAINTEXT_REDIS. */
    atRest: AtRest | undefined;
  } & TransportSecurity
>;

/** Parses the environment; throws ConfigError naming the first bad setting. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = envSchema.safeParse(withSecretFiles(env));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const setting = settingGiven(env, String(issue?.path[0] ?? 'environment'));
    const detail = issue?.path.slice(1).join('.');
    throw new ConfigError(setting, `${detail ? `${detail}: ` : ''}${issue?.message ?? 'invalid'}`);
  }
  const {
    VENDOR_LIMITS,
    CONSOLE_TOKEN,
    CONSOLE_OPERATOR_TOKEN,
    CONSOLE_TOKENS,
    CONSOLE_REQUIRE_NAMED_TOKENS,
    ...withKeys
  } = parsed.data;
  const { REDIS_ENCRYPTION_KEYS, REDIS_INDEX_KEY, REDIS_CLEAR_VALUES_UNTIL, ...rest } = withKeys;
  const consoleTokens = readConsoleTokens(
    { CONSOLE_TOKEN, CONSOLE_OPERATOR_TOKEN, CONSOLE_TOKENS, CONSOLE_REQUIRE_NAMED_TOKENS },
    (name) => settingGiven(env, name),
  );
  checkSettingPairs(rest);
  checkRedisTransport(rest, settingGiven(env, 'REDIS_PASSWORD'));
  const atRest = readAtRest(
    {
      REDIS_URL: rest.REDIS_URL,
      REDIS_ENCRYPTION_KEYS,
      REDIS_INDEX_KEY,
      ALLOW_PLAINTEXT_REDIS: rest.ALLOW_PLAINTEXT_REDIS,
      REDIS_CLEAR_VALUES_UNTIL,
      DEDUPE_WINDOW_SECONDS: rest.DEDUPE_WINDOW_SECONDS,
    },
    (name) => settingGiven(env, name),
  );
  return Object.freeze({
    ...rest,
    limits: operationLimits(VENDOR_LIMITS, rest),
    console: consoleTokens,
    atRest,
    ...transportSecurity(rest),
  });
}

/** Each operation's limits: its VENDOR_LIMITS override, else the VENDOR_* defaults. */
function operationLimits(
  overrides: Env['VENDOR_LIMITS'],
  env: Pick<Env, 'VENDOR_RATE_PER_SECOND' | 'VENDOR_MAX_CONCURRENT'>,
): Readonly<Record<Operation, Readonly<OperationLimits>>> {
  const limits = Object.fromEntries(
    OPERATIONS.map((op) => {
      const override = overrides[op] ?? {};
      const limit: OperationLimits = {
        ratePerSecond: override.ratePerSecond ?? env.VENDOR_RATE_PER_SECOND,
        maxConcurrent: override.maxConcurrent ?? env.VENDOR_MAX_CONCURRENT,
        ...(override.spendCapPerHour === undefined ? {} : { spendCapPerHour: override.spendCapPerHour }),
      };
      return [op, Object.freeze(limit)];
    }),
  ) as Record<Operation, OperationLimits>;
  return Object.freeze(limits);
}

/** The longest commit spacing when COMMIT_MAX_INTERVAL_MS is not given. */
const DEFAULT_MAX_COMMIT_INTERVAL_MS = 100;

/** The shortest and longest spacing between commit rounds (CommitLoop). */
export function commitSpacing(config: Pick<Config, 'COMMIT_INTERVAL_MS' | 'COMMIT_MAX_INTERVAL_MS'>): {
  commitIntervalMs: number;
  maxCommitIntervalMs: number;
} {
  return {
    commitIntervalMs: config.COMMIT_INTERVAL_MS,
    maxCommitIntervalMs:
      config.COMMIT_MAX_INTERVAL_MS ?? Math.max(DEFAULT_MAX_COMMIT_INTERVAL_MS, config.COMMIT_INTERVAL_MS),
  };
}

/** Settings that are valid alone but not together. */
function checkSettingPairs(rest: Omit<Env, 'VENDOR_LIMITS' | TokenSettings | AtRestSettings>): void {
  if (rest.AUDIT_RETENTION_MS < rest.OUTPUT_RETENTION_MS) {
    throw new ConfigError(
      'AUDIT_RETENTION_MS',
      `must be at least OUTPUT_RETENTION_MS (${rest.OUTPUT_RETENTION_MS}): the audit trail outlives what it accounts for`,
    );
  }
  if (rest.WEBHOOK_PUBLIC_URL !== undefined && rest.WEBHOOK_SECRET === undefined) {
    throw new ConfigError('WEBHOOK_SECRET', 'is required when WEBHOOK_PUBLIC_URL is set');
  }
  if (rest.ADMIN_PORT !== 0 && rest.ADMIN_PORT === rest.HTTP_PORT) {
    throw new ConfigError(
      'ADMIN_PORT',
      'must differ from HTTP_PORT (the admin routes stay off the public port)',
    );
  }
  if (
    !rest.ALLOW_INSECURE_TRANSPORT &&
    rest.WEBHOOK_PUBLIC_URL !== undefined &&
    !rest.WEBHOOK_PUBLIC_URL.startsWith('https:')
  ) {
    // The vendor sends the search's result (a plate, an owner's document) to this address.
    throw new ConfigError(
      'WEBHOOK_PUBLIC_URL',
      'must be https (ALLOW_INSECURE_TRANSPORT=true allows http, for local use)',
    );
  }
  if (!rest.ALLOW_INSECURE_VENDOR && !rest.VENDOR_BASE_URL.startsWith('https:')) {
    throw new ConfigError(
      'VENDOR_BASE_URL',
      'must be https (ALLOW_INSECURE_VENDOR=true allows http, for the sandbox)',
    );
  }
  if (rest.COMMIT_MAX_INTERVAL_MS !== undefined && rest.COMMIT_MAX_INTERVAL_MS < rest.COMMIT_INTERVAL_MS) {
    throw new ConfigError(
      'COMMIT_MAX_INTERVAL_MS',
      `must be at least COMMIT_INTERVAL_MS (${rest.COMMIT_INTERVAL_MS})`,
    );
  }
  if (rest.VEHICLE_SEARCH_CLAIM_TTL_MS <= rest.VENDOR_TIMEOUT_MS) {
    // A claim that lapses while its owner still waits for the vendor lets a second replica
    // publish the same search's event.
    throw new ConfigError('VEHICLE_SEARCH_CLAIM_TTL_MS', 'must be greater than VENDOR_TIMEOUT_MS');
  }
  if (rest.REDIS_URL === undefined && rest.MEMORY_DEDUPE_MAX_ENTRIES < rest.REPLICA_WINDOW) {
    // Fewer than the requests taken and not yet committed: an outcome dropped before its
    // commit would be paid again when an aborted transaction hands its request back.
    throw new ConfigError(
      'MEMORY_DEDUPE_MAX_ENTRIES',
      `must be at least REPLICA_WINDOW (${rest.REPLICA_WINDOW}), the requests one instance holds uncommitted`,
    );
  }
}

function transportSecurity(env: Parameters<typeof registryAuth>[0]): TransportSecurity {
  return { kafkaSecurity: Object.freeze(kafkaSecurity(env)), registryAuth: registryAuth(env) };
}

/**
 * The settings of the audit commands (replay, redrive): only what reading and republishing
 * need, so an auditor does not have to provide the vendor's URL and key. `overrides` are the
 * command-line flags; they win over the environment and go through the same checks.
 */
const auditEnvSchema = envSchema
  .pick({
    KAFKA_BROKERS: true,
    KAFKA_CLIENT_ID: true,
    KAFKA_GROUP_ID: true,
    TOPIC_PREFIX: true,
    SCHEMA_REGISTRY_URL: true,
  })
  .extend(transportEnvShape)
  .extend({
    /** Connection timeout of the audit commands: an unreachable broker fails in seconds. */
    AUDIT_CONNECT_TIMEOUT_MS: int(1, 3_000),
  });

/** Only the secrets the audit commands use are read: the console's or the vendor's files may be out of reach. */
const AUDIT_SECRET_SETTINGS = SECRET_SETTINGS.filter((name) => name in auditEnvSchema.shape);

export type AuditConfig = Readonly<z.infer<typeof auditEnvSchema> & TransportSecurity>;

export function loadAuditConfig(
  overrides: Readonly<Record<string, string | undefined>> = {},
  env: NodeJS.ProcessEnv = process.env,
): AuditConfig {
  const given = Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined));
  const parsed = auditEnvSchema.safeParse(withSecretFiles({ ...env, ...given }, AUDIT_SECRET_SETTINGS));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(String(issue?.path[0] ?? 'environment'), issue?.message ?? 'invalid');
  }
  return Object.freeze({ ...parsed.data, ...transportSecurity(parsed.data) });
}

/** The sandbox's own settings, its SANDBOX_* variables (src/sandbox/main.ts says which). */
export function sandboxEnvironment(
  env: NodeJS.ProcessEnv = process.env,
): Readonly<Record<string, string | undefined>> {
  return Object.fromEntries(Object.entries(env).filter(([name]) => name.startsWith('SANDBOX_')));
}

/**
 * `dev`: the environment with the local stack's defaults under it (the environment wins). The
 * stack's addresses follow the ports stack/up.sh reads (KAFKA_PORT, REGISTRY_PORT, REDIS_PORT),
 * so `KAFKA_PORT=19092 npm run dev` talks to the stack it has just started there.
 */
export function devEnvironment(env: NodeJS.ProcessEnv = process.env): Record<string, string | undefined> {
  return {
    ...stackAddress(env, 'KAFKA_BROKERS', 'KAFKA_PORT', 9092, (port) => `127.0.0.1:${port}`),
    ...stackAddress(
      env,
      'SCHEMA_REGISTRY_URL',
      'REGISTRY_PORT',
      8081,
      (port) => `http://127.0.0.1:${port}/apis/ccompat/v7`,
    ),
    ...stackAddress(env, 'REDIS_URL', 'REDIS_PORT', 6379, (port) => `redis://127.0.0.1:${port}`),
    HTTP_HOST: '127.0.0.1',
    HTTP_PORT: '8080',
    ADMIN_HOST: '127.0.0.1',
    ADMIN_PORT: '9090',
    VENDOR_RATE_PER_SECOND: '20',
    // The sandbox calls the sink on the service's own port (0 = the port it bound).
    WEBHOOK_PUBLIC_URL: 'http://127.0.0.1:0',
    // The webhook over http on loopback, and the stack's plaintext listeners.
    ALLOW_INSECURE_TRANSPORT: 'true',
    WEBHOOK_SECRET: randomBytes(24).toString('hex'),
    VEHICLE_SEARCH_POLL_MS: '5000',
    ...env,
  };
}

/**
 * The local stack's address for `setting`, at the port stack/up.sh reads from `portVariable`
 * (else its default); nothing when the address is given outright, whatever the port says.
 */
function stackAddress(
  env: NodeJS.ProcessEnv,
  setting: 'KAFKA_BROKERS' | 'SCHEMA_REGISTRY_URL' | 'REDIS_URL',
  portVariable: 'KAFKA_PORT' | 'REGISTRY_PORT' | 'REDIS_PORT',
  fallback: number,
  address: (port: number) => string,
): Record<string, string> {
  if (env[setting] !== undefined) return {};
  const raw = env[portVariable]?.trim();
  if (raw === undefined || raw === '') return { [setting]: address(fallback) };
  const port = Number(raw);
  if (!/^\d+$/.test(raw) || port < 1 || port > 65_535)
    throw new ConfigError(portVariable, `must be a port number (1-65535) of the local stack, got "${raw}"`);
  return { [setting]: address(port) };
}
