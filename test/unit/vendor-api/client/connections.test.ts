import { describe, expect, it } from 'vitest';
import { clientFor, json, parsed, startFakeVendor } from './fake-vendor.js';
import { summarySample } from './samples.js';

describe('shared agent', () => {
  // undici may open a second socket while the first is still being released, so the
  // assertion is "far fewer sockets than calls", not "exactly one".
  it('sequential calls reuse keep-alive connections instead of opening one per call', async () => {
    const ports: number[] = [];
    const vendor = await startFakeVendor((_, response, incoming) => {
      ports.push(incoming.socket.remotePort ?? 0);
      json(response, 200, summarySample);
    });
    const client = clientFor(vendor);
    for (let i = 0; i < 8; i++)
      await client.call('lawsuits-summary', parsed('lawsuits-summary', { taxId: '52998224725' }));
    expect(ports).toHaveLength(8);
    expect(new Set(ports).size).toBeLessThanOrEqual(2);
  });

  it('never opens more connections than the configured bound', async () => {
    const sockets = new Set<number>();
    let inFlight = 0;
    let mostInFlight = 0;
    const vendor = await startFakeVendor((_, response, incoming) => {
      sockets.add(incoming.socket.remotePort ?? 0);
      mostInFlight = Math.max(mostInFlight, ++inFlight);
      setTimeout(() => {
        inFlight--;
        json(response, 200, summarySample);
      }, 20);
    });
    const client = clientFor(vendor, { connections: 2 });
    await Promise.all(
      Array.from({ length: 6 }, () =>
        client.call('lawsuits-summary', parsed('lawsuits-summary', { taxId: '52998224725' })),
      ),
    );
    expect(sockets.size).toBeLessThanOrEqual(2);
    expect(mostInFlight).toBe(2);
  });
});
