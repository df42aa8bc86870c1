import type { SchemaRegistry } from '@kafkajs/confluent-schema-registry';
import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../../../src/errors.js';
import { RegistryUnavailable, registryCodec, registryStatus } from '../../../src/producers/value-codec.js';

/** The client's error shape (mappersmith reports a refused connection as status 400). */
function responseError(status: number): Error {
  const error = new Error(`Confluent_Schema_Registry - Error, status ${status}`);
  error.name = 'ResponseError';
  return Object.assign(error, { status });
}

function codecFailingWith(error: Error) {
  const registry = { decode: () => Promise.reject(error) } as unknown as SchemaRegistry;
  return registryCodec(registry, new Map());
}

const framed = Buffer.concat([Buffer.from([0, 0, 0, 0, 42]), Buffer.from('{"requestId":"r"}')]);

describe('decoding a framed value when the registry fails', () => {
  it.each([400, 500, 503, 408])(
    'status %i (unreachable, timeout, 5xx) is the registry’s fault',
    async (status) => {
      await expect(codecFailingWith(responseError(status)).decode(framed)).rejects.toBeInstanceOf(
        RegistryUnavailable,
      );
    },
  );

  it('an id the registry answers as unknown (404) is the message’s fault', async () => {
    const failure = await codecFailingWith(responseError(404))
      .decode(framed)
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(InvalidRequestError);
    expect((failure as Error).message).toContain('schema id 42 is unknown');
  });

  it('content the schema refuses is the message’s fault', async () => {
    await expect(codecFailingWith(new Error('invalid payload')).decode(framed)).rejects.toBeInstanceOf(
      InvalidRequestError,
    );
  });

  it('reads the status of the client’s errors only', () => {
    expect(registryStatus(responseError(503))).toBe(503);
    expect(registryStatus(new Error('other'))).toBeUndefined();
  });
});
