import { basicAuthHeader, type RegistryAuth } from '../config-transport.js';
import { Agent, request } from 'undici';
import type { JsonSchema } from '../contract/json-schemas.js';

/** The settings of `registerTopicSchemas`. */
export interface RegistrationSettings {
  registryUrl: string;
  /** Basic auth (SCHEMA_REGISTRY_USERNAME / _PASSWORD). */
  auth?: RegistryAuth | undefined;
  compatibility: string;
  /** Time limit of each call; none when unset. */
  timeoutMs?: number | undefined;
}

const JSON_CONTENT = 'application/vnd.schemaregistry.v1+json';

/**
 * The registry calls' own connections, kept open for a minute between calls. undici's default
 * keeps an idle connection 4 s, so the readiness check (one lookup every
 * DEPENDENCY_CHECK_INTERVAL_MS, 5 s) connected anew each time: a TCP handshake, and a TLS one
 * in production, every check of an idle service. Idle sockets do not keep the process alive.
 */
let agent: Agent | undefined;
const registryAgent = (): Agent => (agent ??= new Agent({ keepAliveTimeout: 60_000 }));

/**
 * Registers each topic's value schema under `<topic>-value` with an explicit compatibility
 * rule, through the Confluent-compatible REST API, and returns topic → schema id.
 *
 * Why not SchemaRegistry.register(): it reads GET /config/{subject} and expects a 404 for a
 * new subject; Apicurio's ccompat API answers that with the global default instead, which
 * register() then reports as a compatibility mismatch. Registering the version first and then
 * setting the subject's compatibility works on both registries.
 */
export async function registerTopicSchemas(
  settings: RegistrationSettings,
  schemas: ReadonlyMap<string, JsonSchema>,
): Promise<Map<string, number>> {
  const ids = new Map<string, number>();
  for (const [topic, schema] of schemas) ids.set(topic, await registerTopicSchema(settings, topic, schema));
  return ids;
}

export async function registerTopicSchema(
  settings: RegistrationSettings,
  topic: string,
  schema: JsonSchema,
): Promise<number> {
  const subject = encodeURIComponent(`${topic}-value`);
  const registered = await call(settings, 'POST', `/subjects/${subject}/versions`, {
    schemaType: 'JSON',
    schema: JSON.stringify(schema),
  });
  const id = (registered as { id?: unknown }).id;
  if (typeof id !== 'number') throw new Error(`registry returned no schema id for ${topic}-value`);
  const rule = { compatibility: settings.compatibility };
  // Apicurio answers 409 when another client created the subject's rule a moment before
  // (replicas registering again together after the registry lost its storage): the rule then
  // exists, and a second PUT updates it.
  const set = await call(settings, 'PUT', `/config/${subject}`, rule, [409]);
  if (set === undefined) await call(settings, 'PUT', `/config/${subject}`, rule);
  return id;
}

/**
 * The id the registry gives now for `schema` under the topic's subject, or undefined when the
 * subject or that schema under it is unknown (404: 40401 or 40403), e.g. after the registry
 * lost its storage. Any other failure throws.
 */
export async function lookupTopicSchemaId(
  settings: RegistrationSettings,
  topic: string,
  schema: JsonSchema,
): Promise<number | undefined> {
  const subject = encodeURIComponent(`${topic}-value`);
  const found = await call(
    settings,
    'POST',
    `/subjects/${subject}`,
    { schemaType: 'JSON', schema: JSON.stringify(schema) },
    [404],
  );
  if (found === undefined) return undefined;
  const id = (found as { id?: unknown }).id;
  if (typeof id !== 'number') throw new Error(`registry returned no schema id for ${topic}-value`);
  return id;
}

async function call(
  settings: RegistrationSettings,
  method: 'POST' | 'PUT',
  path: string,
  body: unknown,
  /** Answers returned as undefined instead of thrown. */
  absentOn: readonly number[] = [],
): Promise<unknown> {
  const url = `${settings.registryUrl.replace(/\/$/, '')}${path}`;
  const response = await request(url, {
    dispatcher: registryAgent(),
    method,
    headers: { 'content-type': JSON_CONTENT, accept: JSON_CONTENT, ...basicAuthHeader(settings.auth) },
    body: JSON.stringify(body),
    ...(settings.timeoutMs === undefined ? {} : { signal: AbortSignal.timeout(settings.timeoutMs) }),
  });
  const text = await response.body.text();
  if (absentOn.includes(response.statusCode)) return undefined;
  if (response.statusCode >= 300) {
    throw new Error(
      `schema registry ${method} ${path} answered ${response.statusCode}: ${text.slice(0, 300)}`,
    );
  }
  return text ? (JSON.parse(text) as unknown) : {};
}
