import { describe, expect, it } from 'vitest';
import { clientFor, parsed, replyJson, startFakeVendor, type FakeVendor } from './fake-vendor.js';
import { classifySample, summarySample } from './samples.js';

const SUMMARY = parsed('lawsuits-summary', { taxId: '52998224725' });
const CLASSIFY = parsed('classify-document', {
  file: { base64: Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46]).toString('base64') },
});

class Late extends Error {}

/** A call whose hook refuses rejects with the hook's own error. */
async function expectRefused(call: (beforeSend: () => void) => Promise<unknown>): Promise<void> {
  const late = new Late('too late for the slot');
  await expect(
    call(() => {
      throw late;
    }),
  ).rejects.toBe(late);
}

/**
 * Bytes the refused call sent, measured after the fact: two calls that go through follow it, and
 * the server's total is twice the first one's bytes only if the refused call sent nothing (a
 * byte written just before the refusal may still be on its way when the refusal is seen).
 */
async function bytesOfRefused(vendor: FakeVendor, send: () => Promise<unknown>): Promise<number> {
  await send();
  await receivedAtLeast(vendor, 1);
  const afterOne = vendor.received.bytes;
  await send();
  await receivedAtLeast(vendor, afterOne + 1);
  await new Promise((resolve) => setTimeout(resolve, 20));
  return 2 * afterOne - vendor.received.bytes;
}

/** Resolves once the server has read at least `bytes` bytes in all (a request is in). */
async function receivedAtLeast(vendor: FakeVendor, bytes: number): Promise<void> {
  for (let i = 0; i < 200 && vendor.received.bytes < bytes; i++)
    await new Promise((resolve) => setTimeout(resolve, 5));
}

describe('beforeSend: the last word before a request is written', () => {
  it('runs once, before a single byte of the request reaches the vendor', async () => {
    const vendor = await startFakeVendor(replyJson(200, summarySample));
    const client = clientFor(vendor);
    const seenByHook: number[] = [];
    const result = await client.call('lawsuits-summary', SUMMARY, {
      beforeSend: () => seenByHook.push(vendor.received.bytes),
    });
    expect(result.outcome).toBe('ok');
    expect(seenByHook).toEqual([0]);
    expect(vendor.requests).toHaveLength(1);
  });

  it('a hook that throws sends nothing, on a reused keep-alive socket, and the call rejects with its error', async () => {
    const vendor = await startFakeVendor(replyJson(200, summarySample));
    const client = clientFor(vendor);
    await client.call('lawsuits-summary', SUMMARY); // leaves an idle keep-alive socket
    const before = vendor.received.bytes;
    await expectRefused((beforeSend) => client.call('lawsuits-summary', SUMMARY, { beforeSend }));
    // A request after it goes through (undici closed the refused socket and opens another).
    await client.call('lawsuits-summary', SUMMARY);
    await receivedAtLeast(vendor, before * 2);
    expect(vendor.requests).toHaveLength(2);
    expect(vendor.received.bytes).toBe(before * 2);
  });

  it('a refused multipart upload sends neither its headers nor its body', async () => {
    const vendor = await startFakeVendor(replyJson(200, classifySample));
    const client = clientFor(vendor);
    await expectRefused((beforeSend) => client.call('classify-document', CLASSIFY, { beforeSend }));
    const result = await client.call('classify-document', CLASSIFY);
    expect(result.outcome).toBe('ok');
    expect(vendor.requests).toHaveLength(1);
    await receivedAtLeast(vendor, 1);
    const oneRequest = vendor.received.bytes;
    await client.call('classify-document', CLASSIFY);
    await receivedAtLeast(vendor, oneRequest * 2);
    expect(vendor.received.bytes).toBe(oneRequest * 2);
  });

  it('a poll of an asynchronous search honours it too', async () => {
    const vendor = await startFakeVendor(replyJson(200, { id: 'search-1', version: 'v3Async' }));
    const client = clientFor(vendor);
    await expectRefused((beforeSend) => client.getVehicleSearch('search-1', { beforeSend }));
    // The answer does not matter here (not a search's shape): only the bytes that reached the vendor.
    const poll = () => client.getVehicleSearch('search-1').catch(() => undefined);
    expect(await bytesOfRefused(vendor, poll)).toBe(0);
    expect(vendor.requests).toHaveLength(2);
  });

  it('vehicle-async passes it on with its webhook', async () => {
    const vendor = await startFakeVendor(replyJson(200, { id: 'search-1', version: 'v3Async' }));
    const client = clientFor(vendor);
    const search = (beforeSend?: () => void) =>
      client.call('vehicle-async', parsed('vehicle-async', { licensePlate: 'ABC1D23' }), {
        webhook: { url: 'https://hooks.example.com/vehicle', headers: {} },
        ...(beforeSend ? { beforeSend } : {}),
      });
    await expectRefused((beforeSend) => search(beforeSend));
    expect(await bytesOfRefused(vendor, () => search())).toBe(0);
    expect(vendor.requests).toHaveLength(2);
  });
});
