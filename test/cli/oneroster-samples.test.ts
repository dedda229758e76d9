// The sample OneRoster bundles of docs/samples push as documented: a first push's dry run
// explains its references in one line per section, and the real push imports every student.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { seedTenant } from '../helpers/app.ts';
import { cliServer } from '../helpers/cli.ts';
import { pushInProcess, scratchDir } from './push-helpers.ts';

const server = cliServer();

for (const version of ['1.1', '1.2']) {
  test(`docs/samples/oneroster-${version}: dry run, then the real push`, async () => {
    const tenant = await seedTenant(server.ctx);
    const dir = scratchDir();
    const bundle = path.resolve(`docs/samples/oneroster-${version}`);
    const args = ['oneroster', bundle, '--institution', tenant.slug, '--cohort', tenant.cohortId];
    const dry = await pushInProcess(server.url, tenant.rosterSecret, dir, [...args, '--dry-run']);
    assert.equal(dry.code, 0, dry.stdout + dry.stderr);
    assert.match(
      dry.stdout,
      /\n8 enrolments refer to students this push would create; push the roster for real first/,
    );
    const real = await pushInProcess(server.url, tenant.rosterSecret, dir, args);
    assert.equal(real.code, 0, real.stdout + real.stderr);
    const students = await server.ctx.admin(
      'GET',
      `/admin/v1/institutions/${tenant.slug}/students?limit=100`,
    );
    const names = students.json().items.map((s: { first_name: string }) => s.first_name);
    assert.equal(names.length, 8);
    assert.ok(names.includes('Ana'));
  });
}
