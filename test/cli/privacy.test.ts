// ssp privacy export|erase over the admin API: the export document by email or SIS id, to
// standard output or a file; an erase that only says what it would remove until --yes.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { OPERATOR_TOKEN, seedTenant, startTestApp, type TestContext } from '../helpers/app.ts';
import { runSsp, sspBin } from '../helpers/cli.ts';
import { seedStudentEverywhere } from '../privacy/seed.ts';

const run = promisify(execFile);
let ctx: TestContext;
const server = {
  url: '',
  get ctx() {
    return ctx;
  },
};
before(async () => {
  // The seed adds a webhook endpoint on loopback.
  ctx = await startTestApp('pglite', { config: { allowLoopbackOutbound: true } });
  await ctx.app.listen({ host: '127.0.0.1', port: 0 });
  server.url = `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`;
});
after(() => ctx?.close());

test('ssp privacy export and erase', async () => {
  const tenant = await seedTenant(server.ctx);
  const student = await seedStudentEverywhere(server.ctx, tenant);

  const byEmail = JSON.parse(
    await runSsp(server.url, ['privacy', 'export', tenant.slug, '--email', student.email.toUpperCase()]),
  );
  assert.equal(byEmail.format, 'ssp-student-export/1');
  assert.equal(byEmail.student.email, student.email);
  assert.ok(byEmail.help_requests.length >= 1);

  const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ssp-privacy-')), 'export.json');
  await runSsp(server.url, ['privacy', 'export', tenant.slug, '--student-id-ext', student.ext, '--out', out]);
  assert.equal(JSON.parse(fs.readFileSync(out, 'utf8')).student.id, student.id);

  // Naming the student twice, or not at all, is a usage error.
  const twice = await run(
    process.execPath,
    [sspBin, '--url', server.url, 'privacy', 'export', tenant.slug, '--email', 'a@b.c', '--student-id', 'x'],
    { env: { ...process.env, SSP_OPERATOR_TOKEN: OPERATOR_TOKEN } },
  ).catch((error) => error);
  assert.equal(twice.code, 64);
  assert.match(twice.stderr, /one of --email, --student-id-ext and --student-id/);

  // Without --yes: what would go, and nothing erased.
  const preview = JSON.parse(await runSsp(server.url, ['privacy', 'erase', tenant.slug, student.id]));
  assert.equal(preview.email, student.email);
  assert.ok(preview.removes);
  const still = await server.ctx.admin('GET', `/admin/v1/institutions/${tenant.slug}/students/${student.id}`);
  assert.equal(still.statusCode, 200);

  const erased = JSON.parse(await runSsp(server.url, ['privacy', 'erase', tenant.slug, student.id, '--yes']));
  assert.equal(erased.already_erased, false);
  assert.deepEqual(erased.help_request_ids.sort(), [...student.requestIds].sort());
  const gone = await server.ctx.admin('GET', `/admin/v1/institutions/${tenant.slug}/students/${student.id}`);
  assert.equal(gone.statusCode, 404);

  // An export of an erased student is refused in words, with the refused-input exit code.
  const none = await run(
    process.execPath,
    [sspBin, '--url', server.url, 'privacy', 'export', tenant.slug, '--email', student.email],
    { env: { ...process.env, SSP_OPERATOR_TOKEN: OPERATOR_TOKEN } },
  ).catch((error) => error);
  assert.equal(none.code, 65);
  assert.equal(none.stdout, '');
});
