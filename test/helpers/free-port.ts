import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';

/** A loopback port free at the time of asking (for a server a test starts itself). */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((done) => probe.listen(0, '127.0.0.1', done));
  const { port } = probe.address() as AddressInfo;
  await new Promise((done) => probe.close(done));
  return port;
}
