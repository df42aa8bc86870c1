import { randomUUID } from 'node:crypto';
import { describe, expect, inject, it } from 'vitest';
import { generateJsonSchemas } from '../../src/contract/json-schemas.js';
import { createRegistryClient } from '../../src/producers/registry-client.js';
import { registerTopicSchema } from '../../src/producers/schema-registration.js';
import { liveRegistryCodec, RegistryUnavailable, registryCodec } from '../../src/producers/value-codec.js';

/** The service frames its outputs itself; a real registry and its client say what is right. */
describe('framing outputs for the schema registry', () => {
  const registryUrl = inject('schemaRegistryUrl');
  const schema = generateJsonSchemas().get('errors');
  if (!schema) throw new Error('no errors schema');
  const deadLetter = {
    requestId: 'r-1',
    operation: 'lawsuits-summary',
    attempts: 0,
    failedAt: '2026-01-01T00:00:00.000Z',
    error: { kind: 'invalid_request', message: 'params: taxId: invalid check digits', retryable: false },
    request: { requestId: 'r-1', params: { taxId: 'Ação 123' } },
    origin: { topic: 't', partition: 0, offset: '7' },
  };
  const setUp = async (id?: number, validate?: boolean) => {
    const topic = `framing-${randomUUID()}`;
    const registered =
      id ?? (await registerTopicSchema({ registryUrl, compatibility: 'NONE' }, topic, schema));
    const client = createRegistryClient(registryUrl);
    let suspected = 0;
    const codec = liveRegistryCodec(
      {
        idFor: () => Promise.resolve(registered),
        client: () => client,
        suspect: () => {
          suspected += 1;
        },
      },
      validate === undefined ? {} : { validate },
    );
    return { codec, client, id: registered, suspected: () => suspected };
  };

  it('writes the same bytes as the registry client, every time', async () => {
    const { codec, client, id } = await setUp();
    const expected = await client.encode(id, deadLetter);
    expect((await codec.encode('t', deadLetter)).equals(expected)).toBe(true);
    expect((await codec.encode('t', deadLetter)).equals(expected)).toBe(true);
    expect(await client.decode(await codec.encode('t', deadLetter))).toEqual(deadLetter);
  });

  it('checking values, writes the same bytes as the registry client, and refuses a value its schema refuses', async () => {
    const { codec, client, id } = await setUp(undefined, true);
    expect((await codec.encode('t', deadLetter)).equals(await client.encode(id, deadLetter))).toBe(true);
    await expect(codec.encode('t', { ...deadLetter, attempts: 'many' })).rejects.toThrow('invalid payload');
  });

  it('unchecked (the service), frames what it is given; a reader checking the schema refuses a value it refuses', async () => {
    const { codec, client } = await setUp();
    const framed = await codec.encode('t', { ...deadLetter, attempts: 'many' });
    await expect(client.decode(framed)).rejects.toThrow('invalid payload');
  });

  it('prepared, holds each topic’s schema before its first frame (no validator compiled amid the first calls)', async () => {
    const { codec, client, id } = await setUp();
    expect(client.cache.getSchema(id)).toBeUndefined();
    await codec.prepare(['t']);
    expect(client.cache.getSchema(id)).toBeDefined();
    expect((await codec.encode('t', deadLetter)).equals(await client.encode(id, deadLetter))).toBe(true);
  });

  it('a reader prepared holds the latest schema of each topic it reads, and skips a topic with none', async () => {
    const topic = `framing-${randomUUID()}`;
    const id = await registerTopicSchema({ registryUrl, compatibility: 'NONE' }, topic, schema);
    const client = createRegistryClient(registryUrl);
    const reader = registryCodec(client, new Map());
    await reader.prepare([topic, `unregistered-${randomUUID()}`]);
    expect(client.cache.getSchema(id)).toBeDefined();
    const framed = await client.encode(id, deadLetter);
    expect(await reader.decode(framed)).toEqual(deadLetter);
  });

  it('an id the registry does not know is a registry fault, and the ids are checked again', async () => {
    const { codec, suspected } = await setUp(2_000_000_000);
    await expect(codec.encode('t', deadLetter)).rejects.toBeInstanceOf(RegistryUnavailable);
    expect(suspected()).toBe(1);
  });
});
