// docs/operations.md's backup and restore, as an operator runs it: pg_dump of a database in use
// (custom format), pg_restore into a fresh database, and the service started on the copy serves
// the same data, its stored secrets still readable with the same ENCRYPTION_KEY. PostgreSQL only
// (TEST_DATABASE_URL); pg_dump and pg_restore must be on PATH.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { createPostgresDb } from '../../src/db/db.ts';
import { migrate } from '../../src/db/migrate.ts';
import { seedTenant, startTestApp, type TestContext } from '../helpers/app.ts';
import { pushRoster } from '../helpers/roster.ts';
import { createEmptyDatabase } from '../helpers/scratch-db.ts';
import { testTimeout } from '../helpers/time-limit.ts';

const base = process.env.TEST_DATABASE_URL;

/** What an admin reads of an institution: its record, students, cohorts and webhook endpoints. */
async function readBack(ctx: TestContext, slug: string) {
  const get = async (url: string) => {
    const res = await ctx.admin('GET', url);
    assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
    return res.json();
  };
  const base = `/admin/v1/institutions/${slug}`;
  return {
    institution: await get(base),
    students: await get(`${base}/students?limit=100`),
    cohorts: await get(`${base}/cohorts`),
    endpoints: await get(`${base}/webhook-endpoints`),
    runs: await get(`${base}/runs`),
  };
}

test('a dump restored into a fresh database serves the same data', {
  skip: !base,
  timeout: testTimeout(180_000),
}, async () => {
  const source = await createEmptyDatabase(base!, 'ssp_backup');
  const copy = await createEmptyDatabase(base!, 'ssp_restore');
  const dumpFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ssp-dump-')), 'ssp.dump');
  try {
    const sourceDb = createPostgresDb({ connectionString: source.url });
    await migrate(sourceDb);
    const before = await startTestApp('postgres', { db: sourceDb, config: { allowLoopbackOutbound: true } });
    let slug: string;
    let expected: Awaited<ReturnType<typeof readBack>>;
    try {
      const tenant = await seedTenant(before);
      slug = tenant.slug;
      const push = await pushRoster(before, tenant, {
        students: [
          { email: 'ana@example.edu', student_id_ext: 'B1', first_name: 'Ana' },
          { email: 'bo@example.edu', student_id_ext: 'B2', first_name: 'Bo' },
        ],
      });
      assert.equal(push.statusCode, 200, push.body);
      const endpoint = await before.admin('POST', `/admin/v1/institutions/${slug}/webhook-endpoints`, {
        url: 'http://127.0.0.1:9/ssp-hooks',
      });
      assert.equal(endpoint.statusCode, 201, endpoint.body);
      expected = await readBack(before, slug);
    } finally {
      await before.close();
      await sourceDb.close();
    }

    // The commands of docs/operations.md.
    execFileSync('pg_dump', ['--format=custom', '--no-owner', `--file=${dumpFile}`, source.url]);
    execFileSync('pg_restore', ['--no-owner', '--exit-on-error', `--dbname=${copy.url}`, dumpFile]);

    const copyDb = createPostgresDb({ connectionString: copy.url });
    // Nothing to apply: the restored schema is the release's.
    assert.deepEqual(await migrate(copyDb), []);
    const after = await startTestApp('postgres', { db: copyDb, config: { allowLoopbackOutbound: true } });
    try {
      const restored = await readBack(after, slug);
      assert.deepEqual(restored, expected);
      assert.equal(restored.students.items.length, 2);
      // The roster secret's hash and the endpoint's sealed signing secret came along: the feed
      // still authenticates, and rotating the endpoint's secret decrypts the old one.
      const id = expected.endpoints.items?.[0]?.id ?? expected.endpoints[0]?.id;
      const rotate = await after.admin(
        'POST',
        `/admin/v1/institutions/${slug}/webhook-endpoints/${id}/rotate-secret`,
      );
      assert.ok(rotate.statusCode < 300, rotate.body);
    } finally {
      await after.close();
      await copyDb.close();
    }
  } finally {
    await source.drop();
    await copy.drop();
    fs.rmSync(path.dirname(dumpFile), { recursive: true, force: true });
  }
});
