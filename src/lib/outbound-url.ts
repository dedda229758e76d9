// Outbound URL guard (webhook endpoints, calendar feeds). A URL is allowed only when it is
// https and every address its host stands for is a public unicast address. Checked when a URL
// is saved, and again at connect time on the address actually connected to (guardedLookup),
// so a name that later resolves to a private address (DNS rebinding) is still refused.
//
// Refused: loopback, RFC 1918 private, link-local (and so cloud metadata 169.254.169.254),
// carrier-grade NAT (100.64/10, e.g. 100.100.100.200), multicast, broadcast, unspecified,
// reserved and documentation ranges, IPv6 unique-local (fd00:ec2::254), site-local, and every
// IPv6 range that embeds an IPv4 address (IPv4-compatible ::/96, IPv4-mapped, NAT64, 6to4, Teredo): only plain
// global unicast passes. IPv4 in any spelling (decimal 2130706433, octal 0177.0.0.1, hex
// 0x7f.1, short 127.1) is normalised by the WHATWG URL parser before it is checked.
//
// Development: `allowLoopback` (config ALLOW_LOOPBACK_OUTBOUND) additionally allows loopback
// addresses, and plain http when the host is loopback; nothing else changes.

import type { LookupAddress } from 'node:dns';
import dns from 'node:dns';
import net from 'node:net';
import ipaddr from 'ipaddr.js';

export interface OutboundPolicy {
  allowLoopback: boolean;
  /** Save-time DNS check (the system's unless a test keeps names on its own machine). */
  resolve?: Resolver;
  /** Connect-time DNS lookup (the system's, dns.lookup, unless a test brings its own). */
  lookup?: typeof dns.lookup;
}

export type Resolver = (hostname: string) => Promise<string[]>;

export const systemResolver: Resolver = async (hostname) =>
  (await dns.promises.lookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

/** Names refused without resolving them (they are local by definition, or metadata services). */
const blockedNames = [
  /^localhost$/,
  /\.localhost$/,
  /^metadata\.google\.internal$/,
  /\.internal$/,
  /\.local$/,
];

export type AddressVerdict = { ok: true; loopback: boolean } | { ok: false; reason: string };

/** Whether one IP address (any textual form of IPv4 or IPv6) may be connected to. */
export function checkAddress(address: string, policy: OutboundPolicy): AddressVerdict {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    // ipaddr.parse accepts the classic inet_aton spellings (octal, hex, short forms) too.
    let text = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
    // IPv6 is first normalised by the WHATWG URL parser: ipaddr.js reads a dotted tail after
    // zeros (::8.8.8.8, IPv4-compatible) as if it were IPv4-mapped (::ffff:8.8.8.8).
    if (text.includes(':')) text = new URL(`http://[${text}]/`).hostname.slice(1, -1);
    parsed = ipaddr.parse(text);
  } catch {
    return { ok: false, reason: `"${address}" is not an IP address` };
  }
  if (parsed.kind() === 'ipv6') {
    // IPv4-compatible IPv6 (::/96, deprecated, e.g. ::127.0.0.1, ::10.0.0.1, ::8.8.8.8): the first
    // 96 bits are zero. Only :: (unspecified) and ::1 (loopback) are judged below as such.
    const parts = (parsed as ipaddr.IPv6).parts;
    if (parts.slice(0, 6).every((p) => p === 0) && !(parts[6] === 0 && parts[7] <= 1))
      return { ok: false, reason: `${parsed.toString()} is an IPv4-compatible IPv6 address` };
  }
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  const range = parsed.range();
  if (range === 'loopback') {
    return policy.allowLoopback
      ? { ok: true, loopback: true }
      : {
          ok: false,
          reason: `${parsed.toString()} is a loopback address (allowed only in development, with ALLOW_LOOPBACK_OUTBOUND=true)`,
        };
  }
  if (range !== 'unicast')
    return {
      ok: false,
      reason: `${parsed.toString()} is ${rangeWords[range] ?? `a special-purpose address (${range})`}, which the service does not call`,
    };
  return { ok: true, loopback: false };
}

/** What ipaddr.js calls a range, said in words ("linkLocal" is "a link-local address"). */
const rangeWords: Record<string, string> = {
  unspecified: 'the unspecified address',
  broadcast: 'the broadcast address',
  multicast: 'a multicast address',
  linkLocal: 'a link-local address',
  carrierGradeNat: "a carrier-grade NAT address (shared by a provider's customers)",
  private: 'a private network address',
  reserved: 'a reserved address',
  uniqueLocal: 'a unique-local (private) IPv6 address',
  siteLocal: 'a site-local (private) IPv6 address',
  ipv4Mapped: 'an IPv4-mapped IPv6 address',
  rfc6145: 'an IPv4-translated IPv6 address',
  rfc6052: 'a NAT64 (IPv4-embedding) IPv6 address',
  '6to4': 'a 6to4 (IPv4-embedding) IPv6 address',
  teredo: 'a Teredo (IPv4-embedding) IPv6 address',
  benchmarking: 'a benchmarking address',
  amt: 'an AMT relay address',
  as112: 'an AS112 address',
  deprecated: 'a deprecated address',
  orchid2: 'an ORCHIDv2 address',
  discard: 'a discard-only address',
};

export type UrlVerdict = { ok: true; url: URL } | { ok: false; reason: string };

function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '');
}

/**
 * Syntax and literal-address checks that need no DNS: scheme, credentials, blocked names,
 * and IP-literal hosts. Returns the parsed URL.
 */
export function checkUrlSyntax(raw: string, policy: OutboundPolicy): UrlVerdict {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'not an absolute URL' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    return { ok: false, reason: 'the URL must use https' };
  if (url.username || url.password) return { ok: false, reason: 'credentials in the URL are not allowed' };
  const host = hostOf(url).toLowerCase();
  if (host === '') return { ok: false, reason: 'the URL has no host' };
  if (net.isIP(host)) {
    const verdict = checkAddress(host, policy);
    if (!verdict.ok) return verdict;
    if (url.protocol === 'http:' && !verdict.loopback) return { ok: false, reason: 'the URL must use https' };
    return { ok: true, url };
  }
  const localName = host === 'localhost' || host.endsWith('.localhost');
  if (url.protocol === 'http:' && !(policy.allowLoopback && localName))
    return { ok: false, reason: 'the URL must use https' };
  if (localName && !policy.allowLoopback) return { ok: false, reason: `"${host}" is a local name` };
  if (!localName && blockedNames.some((re) => re.test(host)))
    return { ok: false, reason: `"${host}" is an internal name` };
  return { ok: true, url };
}

/**
 * The full check made when a URL is saved: syntax, then every address the host resolves to
 * must be allowed (and, for plain http in development, be loopback).
 */
export async function checkOutboundUrl(
  raw: string,
  policy: OutboundPolicy,
  resolve: Resolver = policy.resolve ?? systemResolver,
): Promise<UrlVerdict> {
  const syntax = checkUrlSyntax(raw, policy);
  if (!syntax.ok) return syntax;
  const host = hostOf(syntax.url);
  if (net.isIP(host)) return syntax;
  let addresses: string[];
  try {
    addresses = await resolve(host);
  } catch {
    return { ok: false, reason: `"${host}" does not resolve` };
  }
  if (addresses.length === 0) return { ok: false, reason: `"${host}" does not resolve` };
  for (const address of addresses) {
    const verdict = checkAddress(address, policy);
    if (!verdict.ok)
      return { ok: false, reason: `"${host}" resolves to a refused address: ${verdict.reason}` };
    if (syntax.url.protocol === 'http:' && !verdict.loopback)
      return { ok: false, reason: 'the URL must use https' };
  }
  return syntax;
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for net/tls connect (undici `connect.lookup`): resolves the name, drops every
 * refused address and connects only to allowed ones; fails when none is left. IP-literal hosts
 * never reach a lookup, so callers check those with checkUrlSyntax before each request.
 */
export function guardedLookup(
  policy: OutboundPolicy,
  lookup: typeof dns.lookup = policy.lookup ?? dns.lookup,
) {
  return (hostname: string, options: dns.LookupOptions, callback: LookupCallback): void => {
    lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const list = (addresses as unknown as LookupAddress[]).filter(
        (a) => checkAddress(a.address, policy).ok,
      );
      if (list.length === 0) {
        const refused = Object.assign(
          new Error(`refused: ${hostname} resolves only to non-public addresses`),
          {
            code: 'E_BLOCKED_ADDRESS',
          },
        );
        return callback(refused, []);
      }
      if (options.all) return callback(null, list);
      callback(null, list[0].address, list[0].family);
    });
  };
}
