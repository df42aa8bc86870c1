import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { lookupTopicSchemaId, registerTopicSchema } from '../../../src/producers/schema-registration.js';

let close: (() => Promise<void>) | undefined;

afterEach(async () => {
  await close?.();
  close = undefined;
});

/** A registry that answers the first `conflicts` PUTs of a rule with Apicurio's 409. */
async function registry(
  conflicts: number,
): Promise<{ url: string; puts: () => number; connections: () => number }> {
  let puts = 0;
  let connections = 0;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    res.setHeader('content-type', 'application/vnd.schemaregistry.v1+json');
    if (req.method === 'POST') {
      res.end(JSON.stringify({ id: 7 }));
      return;
    }
    puts += 1;
    if (puts <= conflicts) {
      res.statusCode = 409;
      res.end(JSON.stringify({ message: "A rule named 'COMPATIBILITY' already exists.", error_code: 0 }));
      return;
    }
    res.end(JSON.stringify({ compatibility: 'BACKWARD' }));
  });
  // Like Apicurio: idle connections kept open, and no Keep-Alive timeout hint for the client.
  server.keepAliveTimeout = 0;
  server.on('connection', () => {
    connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  close = () =>
    new Promise((resolve) =>
      server.close(() => {
        resolve();
      }),
    );
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, puts: () => puts, connections: () => connections };
}

describe('registerTopicSchema', () => {
  it('sets the rule again when another client created it a moment before (409)', async () => {
    const fake = await registry(1);
    const id = await registerTopicSchema({ registryUrl: fake.url, compatibility: 'BACKWARD' }, 't', {});
    expect(id).toBe(7);
    expect(fake.puts()).toBe(2);
  });

  it('fails when the rule cannot be set at all', async () => {
    const fake = await registry(5);
    await expect(
      registerTopicSchema({ registryUrl: fake.url, compatibility: 'BACKWARD' }, 't', {}),
    ).rejects.toThrow(/answered 409/);
  });
});

describe('registry calls', () => {
  it('keep their connection between readiness checks 5 s apart (undici drops an idle one after 4 s)', async () => {
    const fake = await registry(0);
    const settings = { registryUrl: fake.url, compatibility: 'BACKWARD' };
    expect(await lookupTopicSchemaId(settings, 't', {})).toBe(7);
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    expect(await lookupTopicSchemaId(settings, 't', {})).toBe(7);
    expect(fake.connections()).toBe(1);
  }, 15_000);
});
