import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { registerTopicSchema } from '../../../src/producers/schema-registration.js';

let close: (() => Promise<void>) | undefined;

afterEach(async () => {
  await close?.();
  close = undefined;
});

/** A registry that answers the first `conflicts` PUTs of a rule with Apicurio's 409. */
async function registry(conflicts: number): Promise<{ url: string; puts: () => number }> {
  let puts = 0;
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
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  close = () =>
    new Promise((resolve) =>
      server.close(() => {
        resolve();
      }),
    );
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, puts: () => puts };
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
