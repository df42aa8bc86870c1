import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LookupFunction } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createSelfieDownloader,
  SELFIE_UNUSABLE_MESSAGE,
  type SelfieDownloader,
} from '../../../src/vendor-api/selfie-download.js';
import { addressAllowed, parseAllowList } from '../../../src/vendor-api/selfie-guard.js';

const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10]);
const UNUSABLE = { code: 'SELFIE_UNUSABLE', kind: 'invalid_request', message: SELFIE_UNUSABLE_MESSAGE };
const toClose: (() => Promise<unknown>)[] = [];

afterEach(async () => {
  for (const close of toClose.splice(0)) await close();
});

/** A loopback server counting every request it sees: the download must never reach it. */
async function startServer(
  answer: (
    path: string,
    respond: (status: number, headers: Record<string, string>, body?: Buffer) => void,
  ) => void,
): Promise<{ port: number; hits: string[] }> {
  const hits: string[] = [];
  const server: Server = createServer((request, response) => {
    hits.push(request.url ?? '');
    answer(request.url ?? '', (status, headers, body) => {
      response.writeHead(status, headers);
      response.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  toClose.push(() => new Promise((resolve) => server.close(resolve)));
  return { port: (server.address() as AddressInfo).port, hits };
}

function downloader(allow: string[] = [], lookup?: LookupFunction): SelfieDownloader {
  const created = createSelfieDownloader({ maxBytes: 1024, timeoutMs: 2_000, allow, lookup });
  toClose.push(() => created.close());
  return created;
}

/** A resolver override: every name resolves to 127.0.0.1, as a hostile DNS record would. */
const toLoopback: LookupFunction = (_hostname, options, callback) => {
  if (options.all === true) {
    (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [
      { address: '127.0.0.1', family: 4 },
    ]);
  } else callback(null, '127.0.0.1', 4);
};

const NOT_PUBLIC = {
  ipv4: [
    ['unspecified', '0.0.0.0'],
    ['broadcast', '255.255.255.255'],
    ['multicast', '224.0.0.1'],
    ['link-local (cloud metadata)', '169.254.169.254'],
    ['loopback', '127.0.0.1'],
    ['loopback, not the first address', '127.255.0.9'],
    ['carrier-grade NAT', '100.64.0.1'],
    ['private 10/8', '10.0.0.1'],
    ['private 172.16/12', '172.16.0.1'],
    ['private 192.168/16', '192.168.1.1'],
    ['reserved 240/4', '240.0.0.1'],
    ['benchmarking', '198.18.0.1'],
    ['documentation', '192.0.2.1'],
    ['as112', '192.31.196.1'],
    ['amt', '192.52.193.1'],
  ],
  ipv6: [
    ['unspecified', '::'],
    ['loopback', '::1'],
    ['link-local', 'fe80::1'],
    ['multicast', 'ff02::1'],
    ['unique local', 'fd12::1'],
    ['IPv4-mapped loopback', '::ffff:127.0.0.1'],
    ['IPv4-mapped link-local', '::ffff:169.254.169.254'],
    ['IPv4-compatible loopback', '::127.0.0.1'],
    ['NAT64 of loopback', '64:ff9b::7f00:1'],
    ['6to4 of loopback', '2002:7f00:1::'],
    ['teredo', '2001::1'],
    ['documentation', '2001:db8::1'],
    ['benchmarking', '2001:2::1'],
    ['orchid', '2001:20::1'],
    ['rfc6145', '::ffff:0:7f00:1'],
    ['discard', '100::1'],
  ],
} as const;

describe('selfie download address policy', () => {
  it.each([...NOT_PUBLIC.ipv4, ...NOT_PUBLIC.ipv6])('refuses %s (%s)', async (_, address) => {
    expect(addressAllowed(address, parseAllowList([]))).toBe(false);
    const host = address.includes(':') ? `[${address}]` : address;
    await expect(downloader().download(`https://${host}/s.jpg`)).rejects.toMatchObject(UNUSABLE);
  });

  it.each(['8.8.8.8', '2606:4700::1111'])('admits the public unicast address %s', (address) => {
    expect(addressAllowed(address, parseAllowList([]))).toBe(true);
  });

  it('admits an address inside an allowed CIDR, and only that', () => {
    const allow = parseAllowList(['10.1.0.0/16', 'fd00::/8']);
    expect(addressAllowed('10.1.2.3', allow)).toBe(true);
    expect(addressAllowed('fd00::5', allow)).toBe(true);
    expect(addressAllowed('10.2.0.1', allow)).toBe(false);
  });

  it('refuses an allow-list entry that is neither a host name nor a CIDR', () => {
    expect(() => parseAllowList(['http://x/'])).toThrow(/neither a host name nor a CIDR/);
  });
});

describe('selfie download refuses internal targets before any byte reaches them', () => {
  it.each([
    ['dotted', (port: number) => `127.0.0.1:${port}`],
    ['decimal', (port: number) => `2130706433:${port}`],
    ['hexadecimal', (port: number) => `0x7f000001:${port}`],
    ['short', (port: number) => `127.1:${port}`],
    ['octal', (port: number) => `0177.0.0.1:${port}`],
    ['IPv4-mapped IPv6', (port: number) => `[::ffff:127.0.0.1]:${port}`],
    ['IPv6 loopback', (port: number) => `[::1]:${port}`],
    ['localhost', (port: number) => `localhost:${port}`],
  ])('loopback spelled %s, by http and https', async (_, host) => {
    const server = await startServer((_path, respond) => {
      respond(200, { 'content-type': 'image/jpeg' }, JPEG);
    });
    for (const scheme of ['http', 'https']) {
      await expect(downloader().download(`${scheme}://${host(server.port)}/s.jpg`)).rejects.toMatchObject(
        UNUSABLE,
      );
    }
    expect(server.hits).toEqual([]);
  });

  it('a name that resolves to loopback is refused at connect time', async () => {
    const server = await startServer((_path, respond) => {
      respond(200, { 'content-type': 'image/jpeg' }, JPEG);
    });
    const download = downloader([], toLoopback).download(`https://images.example.com:${server.port}/s.jpg`);
    await expect(download).rejects.toMatchObject(UNUSABLE);
    expect(server.hits).toEqual([]);
  });

  it('plain http to a public name is refused unless the allow list names it', async () => {
    await expect(
      downloader([], toLoopback).download('http://images.example.com/s.jpg'),
    ).rejects.toMatchObject(UNUSABLE);
  });

  it('a redirect is not followed, even from an allowed host to loopback', async () => {
    const secret = await startServer((_path, respond) => {
      respond(200, { 'content-type': 'image/jpeg' }, JPEG);
    });
    const redirector = await startServer((_path, respond) => {
      respond(302, { location: `http://127.0.0.1:${secret.port}/metrics` });
    });
    const download = downloader(['images.test'], toLoopback).download(
      `http://images.test:${redirector.port}/s.jpg`,
    );
    await expect(download).rejects.toMatchObject(UNUSABLE);
    expect(redirector.hits).toEqual(['/s.jpg']);
    expect(secret.hits).toEqual([]);
  });

  it('a host the allow list names is reached, by http too, whatever it resolves to', async () => {
    const server = await startServer((_path, respond) => {
      respond(200, { 'content-type': 'image/jpeg' }, JPEG);
    });
    const bytes = await downloader(['images.test'], toLoopback).download(
      `http://images.test:${server.port}/s.jpg`,
    );
    expect(Buffer.from(bytes)).toEqual(JPEG);
    expect(server.hits).toEqual(['/s.jpg']);
  });

  it('every failure reads the same: refused, closed port, 403 and not-a-JPEG are indistinguishable', async () => {
    const forbidden = await startServer((_path, respond) => {
      respond(403, {}, Buffer.from('no'));
    });
    const png = await startServer((_path, respond) => {
      respond(200, {}, Buffer.from([0x89, 0x50]));
    });
    const closed = await startServer((_path, respond) => {
      respond(200, {}, JPEG);
    });
    await toClose.pop()?.();
    const allowed = downloader(['127.0.0.1/32']);
    const errors = await Promise.all(
      [
        'https://10.0.0.1/s.jpg',
        `http://127.0.0.1:${forbidden.port}/s.jpg`,
        `http://127.0.0.1:${png.port}/s.jpg`,
        `http://127.0.0.1:${closed.port}/s.jpg`,
      ].map((url) => allowed.download(url).catch((error: unknown) => error)),
    );
    const shapes = errors.map((error) => JSON.stringify(error, Object.getOwnPropertyNames(error).sort()));
    for (const error of errors) expect(error).toMatchObject(UNUSABLE);
    expect(new Set(shapes.map((shape) => shape.replace(/"stack":"[^"]*"/, ''))).size).toBe(1);
  });
});
