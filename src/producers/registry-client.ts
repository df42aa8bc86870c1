import { SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { TimeoutMiddleware } from 'mappersmith/middleware/timeout';
import type { RegistryAuth } from '../config-transport.js';

/**
 * The registry client with a JSON Schema validator that knows the standard formats.
 * @kafkajs/confluent-schema-registry builds a bare ajv 7 by default, which rejects the
 * `date-time` format our generated schemas use; ajv 8 with ajv-formats validates it instead.
 */
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

/** `timeoutMs` bounds each call: a registry that accepts connections but never answers is down too. */
export function createRegistryClient(host: string, auth?: RegistryAuth, timeoutMs?: number): SchemaRegistry {
  const ajv = addFormats(new Ajv({ strict: false, allErrors: false }));
  return new SchemaRegistry(
    {
      host,
      ...(auth === undefined ? {} : { auth: { username: auth.username, password: auth.password } }),
      // The library is typed against mappersmith's CommonJS build; the middleware is the same.
      ...(timeoutMs === undefined ? {} : { middlewares: [TimeoutMiddleware(timeoutMs) as never] }),
    },
    // The library types the instance as its own ajv 7; v8 has the same addSchema/compile shape.
    { [SchemaType.JSON]: { ajvInstance: ajv as never } },
  );
}
