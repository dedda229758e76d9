// A hostile OneRoster provider for bench/oneroster-limits.ts, run in a process of its own so
// that what it allocates is not counted as the service's. It answers the token request, then
// either every data request with a 500 whose body is ERROR_MB megabytes (streamed), or the
// users collection with PAGES pages of about PAGE_MB megabytes each (1000 users, each carrying
// a large extension field, as some providers' metadata does), the other collections empty.
//
//   node bench/hostile-oneroster.ts error <ERROR_MB>
//   node bench/hostile-oneroster.ts pages <PAGE_MB> <PAGES>
import http from 'node:http';
import type { AddressInfo } from 'node:net';

const [mode, sizeArg, pagesArg] = process.argv.slice(2);
const megabytes = Number(sizeArg);
const pageCount = Number(pagesArg ?? 1);
const PER_PAGE = 1000;

function page(offset: number): Buffer {
  const filler = 'x'.repeat(Math.floor((megabytes * 1024 * 1024) / PER_PAGE));
  const users = Array.from({ length: PER_PAGE }, (_, i) => ({
    sourcedId: `u${offset + i}`,
    status: 'active',
    dateLastModified: '2026-01-01T00:00:00Z',
    username: `u${offset + i}`,
    givenName: 'Given',
    familyName: 'Family',
    identifier: `S${offset + i}`,
    email: `u${offset + i}@hostile.example`,
    roles: [{ roleType: 'primary', role: 'student', org: { sourcedId: 'school' } }],
    metadata: { blob: filler },
  }));
  return Buffer.from(JSON.stringify({ users }));
}

const pages = mode === 'pages' ? Array.from({ length: pageCount }, (_, n) => page(n * PER_PAGE)) : [];
const chunk = Buffer.alloc(64 * 1024, 'e');

const server = http.createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://x');
  if (url.pathname === '/token') {
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ access_token: 'hostile', token_type: 'bearer', expires_in: 3600 }));
    return;
  }
  const name = url.pathname.split('/').pop() ?? '';
  if (mode === 'error') {
    res.writeHead(500, { 'content-type': 'text/plain' });
    let left = megabytes * 1024 * 1024;
    const write = () => {
      while (left > 0) {
        left -= chunk.length;
        if (!res.write(chunk)) {
          res.once('drain', write);
          return;
        }
      }
      res.end();
    };
    res.on('error', () => {});
    write();
    return;
  }
  const offset = Number(url.searchParams.get('offset') ?? 0);
  const body =
    name === 'users' && offset / PER_PAGE < pages.length
      ? pages[offset / PER_PAGE]
      : Buffer.from(JSON.stringify({ [name]: [] }));
  res.writeHead(200, {
    'content-type': 'application/json',
    'x-total-count': String(name === 'users' ? pages.length * PER_PAGE : 0),
  });
  res.end(body);
});
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`base URL: http://127.0.0.1:${port}/ims/oneroster/rostering/v1p2\n`);
  process.stdout.write(`token URL: http://127.0.0.1:${port}/token\n`);
});
process.on('SIGTERM', () => process.exit(0));
