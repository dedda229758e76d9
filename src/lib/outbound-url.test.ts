import assert from 'node:assert/strict';
import type dns from 'node:dns';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { checkAddress, checkOutboundUrl, checkUrlSyntax, guardedLookup } from './outbound-url.ts';

const strict = { allowLoopback: false };
const dev = { allowLoopback: true };
const noDns = async (host: string): Promise<string[]> => {
  throw new Error(`unexpected lookup of ${host}`);
};
const resolvesTo =
  (...addresses: string[]) =>
  async () =>
    addresses;

/** Every way of writing an IPv4 address that the WHATWG URL parser (and inet_aton) accepts. */
function spellings(octets: [number, number, number, number]): string[] {
  const [a, b, c, d] = octets;
  const n = ((a << 24) >>> 0) + (b << 16) + (c << 8) + d;
  const oct = (x: number) => `0${x.toString(8)}`;
  const hex = (x: number) => `0x${x.toString(16)}`;
  return [
    `${a}.${b}.${c}.${d}`,
    String(n),
    `0x${n.toString(16)}`,
    `0${n.toString(8)}`,
    [a, b, c, d].map(oct).join('.'),
    [a, b, c, d].map(hex).join('.'),
    `${a}.${(b << 16) + (c << 8) + d}`,
    `${a}.${b}.${(c << 8) + d}`,
    `${hex(a)}.${oct(b)}.${c}.${hex(d)}`,
    `[::ffff:${a}.${b}.${c}.${d}]`,
    `[::ffff:${((a << 8) + b).toString(16)}:${((c << 8) + d).toString(16)}]`,
    `[0:0:0:0:0:ffff:${a}.${b}.${c}.${d}]`,
  ];
}

const octet = fc.integer({ min: 0, max: 255 });

/** IPv4 addresses inside refused ranges. */
const refusedV4 = fc.oneof(
  fc.tuple(fc.constant(127), octet, octet, octet), // loopback
  fc.tuple(fc.constant(10), octet, octet, octet), // private
  fc.tuple(fc.constant(172), fc.integer({ min: 16, max: 31 }), octet, octet),
  fc.tuple(fc.constant(192), fc.constant(168), octet, octet),
  fc.tuple(fc.constant(169), fc.constant(254), octet, octet), // link-local, metadata
  fc.tuple(fc.constant(100), fc.integer({ min: 64, max: 127 }), octet, octet), // CGNAT
  fc.tuple(fc.integer({ min: 224, max: 239 }), octet, octet, octet), // multicast
  fc.tuple(fc.constant(0), octet, octet, octet), // unspecified
  fc.tuple(fc.integer({ min: 240, max: 255 }), octet, octet, octet), // reserved, broadcast
);

describe('outbound URL guard', () => {
  test('refuses internal IPv4 addresses in every spelling (property)', () => {
    fc.assert(
      fc.property(refusedV4, fc.integer({ min: 0, max: 11 }), (octets, which) => {
        const host = spellings(octets as [number, number, number, number])[which];
        const verdict = checkUrlSyntax(`https://${host}/hook`, strict);
        assert.equal(verdict.ok, false, `https://${host}/hook must be refused`);
      }),
      { numRuns: 60 },
    );
  });

  test('accepts public IPv4 addresses in every spelling (property)', () => {
    const publicV4 = fc
      .tuple(fc.integer({ min: 1, max: 223 }), octet, octet, octet)
      .filter(
        ([a, b]) => checkAddress(`${a}.${b}.1.1`, strict).ok && checkAddress(`${a}.${b}.255.255`, strict).ok,
      );
    fc.assert(
      fc.property(publicV4, fc.integer({ min: 0, max: 8 }), (octets, which) => {
        const host = spellings(octets as [number, number, number, number])[which];
        const verdict = checkUrlSyntax(`https://${host}/hook`, strict);
        assert.equal(verdict.ok, true, `https://${host}/hook should pass: ${JSON.stringify(verdict)}`);
      }),
      { numRuns: 40 },
    );
  });

  test('IPv4-mapped IPv6 is judged as the IPv4 address it carries', () => {
    // Mapped forms are normalised to IPv4 and then judged as IPv4.
    assert.equal(checkUrlSyntax('https://[::ffff:8.8.8.8]/', strict).ok, true);
    assert.equal(checkUrlSyntax('https://[::ffff:127.0.0.1]/', strict).ok, false);
    assert.equal(checkUrlSyntax('https://[::ffff:a9fe:a9fe]/', strict).ok, false);
  });

  test('refuses the named internal addresses and names', () => {
    for (const url of [
      'https://169.254.169.254/latest/meta-data/',
      'https://[fd00:ec2::254]/',
      'https://100.100.100.200/',
      'https://[::1]/',
      'https://[::]/',
      'https://0.0.0.0/',
      'https://0/',
      'https://[fe80::1]/',
      'https://[fc00::1]/',
      'https://[fec0::1]/',
      'https://[ff02::1]/',
      'https://[64:ff9b::7f00:1]/',
      'https://[2002:7f00:1::]/',
      'https://[2001::1]/',
      'https://localhost/',
      'https://LOCALHOST./',
      'https://api.localhost/',
      'https://metadata.google.internal/',
      'https://printer.local/',
      'https://255.255.255.255/',
    ]) {
      assert.equal(checkUrlSyntax(url, strict).ok, false, url);
    }
  });

  test('https only; no credentials; must parse', () => {
    assert.equal(checkUrlSyntax('http://8.8.8.8/', strict).ok, false);
    assert.equal(checkUrlSyntax('ftp://8.8.8.8/', strict).ok, false);
    assert.equal(checkUrlSyntax('https://user:pw@8.8.8.8/', strict).ok, false);
    assert.equal(checkUrlSyntax('not a url', strict).ok, false);
    assert.equal(checkUrlSyntax('file:///etc/passwd', strict).ok, false);
    assert.equal(checkUrlSyntax('https://8.8.8.8:8443/x?y=1', strict).ok, true);
    assert.equal(checkUrlSyntax('https://[2606:4700::1111]/', strict).ok, true);
  });

  test('the development setting allows loopback and plain http to loopback only', () => {
    assert.equal(checkUrlSyntax('http://127.0.0.1:8080/', dev).ok, true);
    assert.equal(checkUrlSyntax('http://[::1]:8080/', dev).ok, true);
    assert.equal(checkUrlSyntax('https://127.1/', dev).ok, true);
    assert.equal(checkUrlSyntax('http://localhost:8080/', dev).ok, true);
    assert.equal(checkUrlSyntax('http://8.8.8.8/', dev).ok, false);
    assert.equal(checkUrlSyntax('https://10.0.0.1/', dev).ok, false);
    assert.equal(checkUrlSyntax('https://169.254.169.254/', dev).ok, false);
    assert.equal(checkUrlSyntax('http://127.0.0.1/', strict).ok, false);
  });

  test('names are judged by every address they resolve to', async () => {
    assert.equal(
      (await checkOutboundUrl('https://hooks.example.com/', strict, resolvesTo('93.184.216.34'))).ok,
      true,
    );
    assert.equal(
      (await checkOutboundUrl('https://hooks.example.com/', strict, resolvesTo('93.184.216.34', '10.0.0.5')))
        .ok,
      false,
    );
    assert.equal(
      (await checkOutboundUrl('https://rebind.example.com/', strict, resolvesTo('::ffff:7f00:1'))).ok,
      false,
    );
    assert.equal((await checkOutboundUrl('https://x.example.com/', strict, resolvesTo())).ok, false);
    const failing = async () => {
      throw new Error('ENOTFOUND');
    };
    assert.equal((await checkOutboundUrl('https://nx.example.com/', strict, failing)).ok, false);
    // IP literals never reach the resolver.
    assert.equal((await checkOutboundUrl('https://8.8.8.8/', strict, noDns)).ok, true);
    // http to a name is allowed in development only when it resolves to loopback.
    assert.equal((await checkOutboundUrl('http://dev.example.com/', dev, resolvesTo('127.0.0.1'))).ok, false);
    assert.equal(
      (await checkOutboundUrl('http://localhost:1/', dev, resolvesTo('127.0.0.1', '::1'))).ok,
      true,
    );
    assert.equal((await checkOutboundUrl('http://localhost:1/', dev, resolvesTo('192.168.1.1'))).ok, false);
  });

  test('refused addresses resolved by a name are refused in any spelling (property)', async () => {
    await fc.assert(
      fc.asyncProperty(refusedV4, fc.integer({ min: 9, max: 11 }), async (octets, which) => {
        const literal = spellings(octets as [number, number, number, number])[which].replace(/^\[|\]$/g, '');
        const verdict = await checkOutboundUrl('https://hooks.example.com/', strict, resolvesTo(literal));
        assert.equal(verdict.ok, false, literal);
      }),
      { numRuns: 30 },
    );
  });

  test('the connect-time lookup drops refused addresses and fails when none is left', async () => {
    const fake = ((_host: string, _options: unknown, callback: (e: null, a: dns.LookupAddress[]) => void) =>
      callback(null, [
        { address: '10.1.2.3', family: 4 },
        { address: '93.184.216.34', family: 4 },
      ])) as unknown as typeof dns.lookup;
    const lookup = guardedLookup(strict, fake);
    const all = await new Promise<unknown>((resolve, reject) =>
      lookup('hooks.example.com', { all: true }, (e, a) => (e ? reject(e) : resolve(a))),
    );
    assert.deepEqual(all, [{ address: '93.184.216.34', family: 4 }]);
    const one = await new Promise<unknown[]>((resolve, reject) =>
      lookup('hooks.example.com', {}, (e, a, f) => (e ? reject(e) : resolve([a, f]))),
    );
    assert.deepEqual(one, ['93.184.216.34', 4]);

    const internal = ((_h: string, _o: unknown, cb: (e: null, a: dns.LookupAddress[]) => void) =>
      cb(null, [{ address: '169.254.169.254', family: 4 }])) as unknown as typeof dns.lookup;
    await assert.rejects(
      new Promise((resolve, reject) =>
        guardedLookup(strict, internal)('metadata.example.com', {}, (e, a) => (e ? reject(e) : resolve(a))),
      ),
      (error: Error & { code?: string }) => error.code === 'E_BLOCKED_ADDRESS',
    );
  });
});

test('IPv4-compatible IPv6 (::/96) is refused, in URLs and at connect time, also in development', () => {
  for (const address of [
    '::127.0.0.1',
    '::10.0.0.1',
    '::8.8.8.8',
    '::a00:1',
    '0:0:0:0:0:0:7f00:1',
    '::0.0.0.2',
  ]) {
    for (const policy of [strict, dev]) {
      const verdict = checkAddress(address, policy);
      assert.equal(verdict.ok, false, address);
      assert.match((verdict as { reason: string }).reason, /IPv4-compatible/, address);
    }
  }
  assert.equal(checkUrlSyntax('https://[::127.0.0.1]/', strict).ok, false);
  assert.equal(checkUrlSyntax('https://[::127.0.0.1]/', dev).ok, false);
  // Still as before: :: unspecified, ::1 loopback (allowed in development), public v6 allowed.
  assert.match((checkAddress('::', strict) as { reason: string }).reason, /unspecified/);
  assert.equal(checkAddress('::1', dev).ok, true);
  assert.equal(checkAddress('2606:4700:4700::1111', strict).ok, true);
  assert.equal(checkAddress('::ffff:8.8.8.8', strict).ok, true);
});

test('refusing a loopback address names the development setting that allows it', () => {
  const verdict = checkAddress('127.0.0.1', { allowLoopback: false }) as { ok: false; reason: string };
  assert.equal(verdict.ok, false);
  assert.match(verdict.reason, /loopback.*ALLOW_LOOPBACK_OUTBOUND=true/);
});

test('a refused range is said in words, not in the library’s names', () => {
  const strict = { allowLoopback: false };
  const reason = (address: string) => (checkAddress(address, strict) as { reason: string }).reason;
  assert.equal(
    reason('169.254.169.254'),
    '169.254.169.254 is a link-local address, which the service does not call',
  );
  assert.match(reason('fd00:ec2::254'), /is a unique-local \(private\) IPv6 address/);
  assert.match(reason('100.100.100.200'), /carrier-grade NAT/);
  for (const address of ['10.0.0.1', '224.0.0.1', '192.0.2.1', '::', '2001:db8::1', 'fe80::1'])
    assert.doesNotMatch(reason(address), /\b[a-z]+[A-Z][a-z]+\b/, address);
});
