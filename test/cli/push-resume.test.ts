// ssp push at size and through trouble: 100,000 rows end to end, a push cut off and resumed
// from its state file, and a 429 whose Retry-After is honoured. The trouble comes from a real
// proxy server in front of the service.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { seedTenant } from '../helpers/app.ts';
import { cliServer } from '../helpers/cli.ts';
import { type FaultyProxy, pushFor, pushInProcess, scratchDir, startProxy } from './push-helpers.ts';

function rosterFile(dir: string, rows: number): string {
  const file = path.join(dir, 'roster.csv');
  const fd = fs.openSync(file, 'w');
  fs.writeSync(fd, 'email,student_id_ext,first_name,last_name,start_date\n');
  let chunk = '';
  for (let i = 0; i < rows; i++) {
    chunk += `student${i}@example.edu,S${i},Given${i},Family${i},2026-02-23\n`;
    if (chunk.length > 1 << 20) {
      fs.writeSync(fd, chunk);
      chunk = '';
    }
  }
  fs.writeSync(fd, chunk);
  fs.closeSync(fd);
  return file;
}

describe('ssp push: size, interruption and rate limits', () => {
  let proxy: FaultyProxy;
  after(() => proxy?.close());
  const server = cliServer();
  const count = async (slug: string) => {
    const { rows } = await server.ctx.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM students s JOIN institutions i ON i.id = s.institution_id WHERE i.slug = $1',
      [slug],
    );
    return rows[0].n;
  };

  test('100,000 rows are parsed, paged by 5000 and pushed end to end', async () => {
    const tenant = await seedTenant(server.ctx);
    const dir = scratchDir();
    const file = rosterFile(dir, 100_000);
    const r = await pushFor(server.url, tenant, dir, 'roster', file);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /roster\s+100,000\s+100,000\s+0\s+0\s+0\s+20/);
    assert.equal((r.stderr.match(/page \d+/g) ?? []).length, 20, 'one progress line per page when piped');
    assert.match(r.stderr, /page 20, 100000 rows, \d+ rows\/s, 100% of the file/);
    assert.equal(await count(tenant.slug), 100_000);
  });

  test('a push cut off after 3 pages resumes from its state file, sending only the rest', async () => {
    proxy = await startProxy(server.url);
    const tenant = await seedTenant(server.ctx);
    const dir = scratchDir();
    const file = rosterFile(dir, 5_000);
    const args = ['roster', '--cohort', tenant.cohortId, '--page-size', '1000', '--retries', '2', file];
    proxy.cutAfter(3);
    const cut = await pushInProcess(proxy.url, tenant.rosterSecret, dir, args);
    assert.equal(cut.code, 69);
    assert.match(cut.stderr, /cannot reach .*gave up after 2 attempts/);
    assert.match(
      cut.stderr,
      /3 pages were answered and are recorded in .*\.ssp-push-state\.json; run the same command again/,
    );
    assert.equal(await count(tenant.slug), 3000);
    const state = JSON.parse(fs.readFileSync(path.join(dir, '.ssp-push-state.json'), 'utf8'));
    assert.deepEqual(
      state.streams[`roster:${tenant.cohortId}`].map((p: { n: number }) => p.n),
      [1, 2, 3],
    );

    proxy.cutAfter(Infinity);
    const before = proxy.forwarded;
    const resumed = await pushInProcess(proxy.url, tenant.rosterSecret, dir, args);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.match(resumed.stderr, /resuming: 3 pages were answered before the interruption/);
    assert.equal(proxy.forwarded - before, 2, 'only pages 4 and 5 are sent');
    assert.match(resumed.stdout, /roster\s+5,000\s+5,000\s+0\s+0\s+0\s+5 \(3 sent before\)/);
    assert.equal(await count(tenant.slug), 5000);
    assert.equal(fs.existsSync(path.join(dir, '.ssp-push-state.json')), false);

    // A changed file is never resumed half old, half new.
    proxy.cutAfter(proxy.forwarded + 1);
    const again = await pushInProcess(proxy.url, tenant.rosterSecret, dir, args);
    assert.equal(again.code, 69);
    fs.appendFileSync(file, 'late@example.edu,LATE,Late,Comer,\n');
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('Given0,', 'Changed0,'));
    proxy.cutAfter(Infinity);
    const changed = await pushInProcess(proxy.url, tenant.rosterSecret, dir, args);
    assert.equal(changed.code, 0, changed.stderr);
    assert.doesNotMatch(changed.stderr, /resuming/, 'another file (size, mtime) is another push');
  });

  test('a 429 is answered by waiting its Retry-After, then the page goes through', async () => {
    proxy ??= await startProxy(server.url);
    proxy.cutAfter(Infinity);
    const tenant = await seedTenant(server.ctx);
    const dir = scratchDir();
    const file = rosterFile(dir, 10);
    proxy.rateLimitOnce(1);
    const started = Date.now();
    const r = await pushFor(proxy.url, tenant, dir, 'roster', file);
    const took = Date.now() - started;
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /rate limited \(429\); retrying in 1\.0 s \(attempt 2 of 6\)/);
    assert.ok(took >= 1000, `waited ${took} ms`);
    assert.equal(await count(tenant.slug), 10);
  });
});
