import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Which hosts a selfie may be downloaded from. A selfie URL comes from a Kafka message, so it
 * must not reach the service's own network: only public unicast addresses (ipaddr.js range
 * `unicast`) are dialled, checked at connect time (no DNS rebinding between a check and the
 * connection) and, for IP literals, before it (Node skips `lookup` for them). The allow list
 * (SELFIE_URL_ALLOW: host names or CIDRs) admits private buckets and test servers, and http
 * for them; everything else must be https.
 */
export interface SelfieAllowList {
  hosts: ReadonlySet<string>;
  cidrs: readonly [ipaddr.IPv4 | ipaddr.IPv6, number][];
}

export class SelfieRefused extends Error {}

/** Host names (lower case) and CIDRs; a bare address is a /32 or /128. */
export function parseAllowList(entries: readonly string[]): SelfieAllowList {
  const hosts = new Set<string>();
  const cidrs: [ipaddr.IPv4 | ipaddr.IPv6, number][] = [];
  for (const raw of entries) {
    const entry = raw.trim().toLowerCase();
    if (entry === '') continue;
    if (ipaddr.isValidCIDR(entry)) cidrs.push(ipaddr.parseCIDR(entry));
    else if (isIP(entry) !== 0) {
      const address = ipaddr.parse(entry);
      cidrs.push([address, address.kind() === 'ipv4' ? 32 : 128]);
    } else if (/^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/.test(entry)) hosts.add(entry);
    else throw new Error(`"${raw}" is neither a host name nor a CIDR`);
  }
  return { hosts, cidrs };
}

export const isAllowListEntry = (entry: string): boolean => {
  try {
    parseAllowList([entry]);
    return true;
  } catch {
    return false;
  }
};

/** Whether an address may be dialled: public unicast, or inside an allowed CIDR. */
export function addressAllowed(address: string, allow: SelfieAllowList): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.parse(address);
  if (allow.cidrs.some((cidr) => parsed.kind() === cidr[0].kind() && parsed.match(cidr))) return true;
  // ipaddr.js calls the deprecated IPv4-compatible block ::/96 unicast; `::127.0.0.1` is no
  // public address either.
  if (parsed.kind() === 'ipv6' && parsed.match(IPV4_COMPATIBLE)) return false;
  return parsed.range() === 'unicast';
}

const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');

/**
 * Checks a URL before any connection: scheme, and the host when it is an IP literal. The
 * WHATWG parser has already turned `2130706433`, `0x7f000001` and `127.1` into `127.0.0.1`.
 */
export function checkSelfieUrl(text: string, allow: SelfieAllowList): URL {
  if (!URL.canParse(text)) throw new SelfieRefused('not a URL');
  const url = new URL(text);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  const literal = isIP(host) !== 0;
  const listed = literal ? allow.cidrs.some((c) => inCidr(host, c)) : allow.hosts.has(host);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && listed)) {
    throw new SelfieRefused('scheme not allowed');
  }
  if (url.username !== '' || url.password !== '') throw new SelfieRefused('credentials in URL');
  if (literal && !addressAllowed(host, allow)) throw new SelfieRefused('address not allowed');
  return url;
}

function inCidr(host: string, cidr: [ipaddr.IPv4 | ipaddr.IPv6, number]): boolean {
  const parsed = ipaddr.parse(host);
  return parsed.kind() === cidr[0].kind() && parsed.match(cidr);
}

/**
 * A `lookup` for the download agent's sockets: resolves as usual (or with `resolve`, for
 * tests), then refuses the host unless every address is allowed. A listed host name is
 * trusted whatever it resolves to.
 */
export function guardedLookup(allow: SelfieAllowList, resolve: LookupFunction = dnsLookup): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (error, resolved) => {
      if (error) {
        callback(error, '', 0);
        return;
      }
      const addresses = resolved as unknown as LookupAddress[];
      const trusted = allow.hosts.has(hostname.toLowerCase());
      const refused = addresses.length === 0 || addresses.some((a) => !addressAllowed(a.address, allow));
      if (refused && !trusted) {
        callback(new SelfieRefused('address not allowed'), '', 0);
        return;
      }
      if (options.all === true) {
        (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
        return;
      }
      const first = addresses[0] as LookupAddress;
      callback(null, first.address, first.family);
    });
  };
}
