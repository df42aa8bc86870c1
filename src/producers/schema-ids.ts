import type { SchemaRegistry } from '@kafkajs/confluent-schema-registry';
import type { Logger } from 'pino';
import type { JsonSchema } from '../contract/json-schemas.js';
import {
  lookupTopicSchemaId,
  registerTopicSchema,
  registerTopicSchemas,
  type RegistrationSettings,
} from './schema-registration.js';
import { RegistryUnavailable, type LiveSchemaIds } from './value-codec.js';

/** What `SchemaIds` depends on. */
export interface SchemaIdsDeps {
  registration: RegistrationSettings;
  /** Output topic → its value schema. */
  schemas: ReadonlyMap<string, JsonSchema>;
  createClient(): SchemaRegistry;
  logger: Logger;
}

/**
 * The schema ids the service frames its outputs with, kept true to the registry. A registry
 * that lost its storage gives our subjects new ids, and our old ids may then name another
 * client's schemas: after any registry failure (a check, an encode) the ids are checked again
 * before the next frame, every subject looked up and registered again when missing, and a
 * fresh client (empty id cache) replaces the old one when an id changed. A periodic check()
 * (readiness) looks one subject up in turn, so a lost storage is seen even with no failure.
 */
export class SchemaIds implements LiveSchemaIds {
  private current: SchemaRegistry;
  private verified = true;
  /** Bumped by each suspicion: a check started before it cannot clear it. */
  private generation = 0;
  private verifying: Promise<void> | undefined;
  private nextProbe = 0;

  private constructor(
    private readonly deps: SchemaIdsDeps,
    private ids: Map<string, number>,
  ) {
    this.current = deps.createClient();
  }

  /** Registers every subject (start-up) and returns the ids. */
  static async register(deps: SchemaIdsDeps): Promise<SchemaIds> {
    return new SchemaIds(deps, await registerTopicSchemas(deps.registration, deps.schemas));
  }

  client(): SchemaRegistry {
    return this.current;
  }

  async idFor(topic: string): Promise<number> {
    if (!this.verified) await this.verify();
    const id = this.ids.get(topic);
    if (id === undefined) throw new Error(`no schema registered for topic ${topic}`);
    return id;
  }

  suspect(): void {
    this.verified = false;
    this.generation += 1;
  }

  /** One periodic check; throws RegistryUnavailable when the registry does not answer. */
  async check(): Promise<void> {
    if (!this.verified) return this.verify();
    const topics = [...this.deps.schemas.keys()];
    const topic = topics[this.nextProbe % topics.length];
    this.nextProbe += 1;
    const schema = topic === undefined ? undefined : this.deps.schemas.get(topic);
    if (topic === undefined || schema === undefined) return;
    let id: number | undefined;
    try {
      id = await lookupTopicSchemaId(this.deps.registration, topic, schema);
    } catch (error) {
      this.suspect();
      throw unavailable(error);
    }
    if (id === this.ids.get(topic)) return;
    this.suspect();
    await this.verify();
  }

  private verify(): Promise<void> {
    this.verifying ??= this.reverify().finally(() => {
      this.verifying = undefined;
    });
    return this.verifying;
  }

  private async reverify(): Promise<void> {
    const generation = this.generation;
    const fresh = new Map<string, number>();
    try {
      for (const [topic, schema] of this.deps.schemas) {
        const found = await lookupTopicSchemaId(this.deps.registration, topic, schema);
        fresh.set(topic, found ?? (await registerTopicSchema(this.deps.registration, topic, schema)));
      }
    } catch (error) {
      throw unavailable(error);
    }
    const changed = [...fresh].filter(([topic, id]) => this.ids.get(topic) !== id).length;
    if (changed > 0) {
      this.deps.logger.warn(
        { subjects: changed },
        'schema ids changed in the registry (storage lost?); framing with the ids it gives now',
      );
      // The old client caches schemas by id, and an old id may now name another schema.
      this.current = this.deps.createClient();
    }
    this.ids = fresh;
    if (generation === this.generation) this.verified = true;
  }
}

function unavailable(error: unknown): RegistryUnavailable {
  const reason = error instanceof Error ? error.message : String(error);
  return new RegistryUnavailable(`schema registry does not answer: ${reason.slice(0, 200)}`);
}
