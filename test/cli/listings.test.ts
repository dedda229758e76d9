// The ssp CLI: descriptions everywhere, JSON or tables, finding students, help requests by
// email, the students CSV, and operator-reset refusing to create a database.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import type { Command } from 'commander';
import { program } from '../../src/cli/main.ts';
import { type SeededTenant, seedTenant, startTestApp, type TestContext } from '../helpers/app.ts';
import { runSsp } from '../helpers/cli.ts';
import { pushRoster } from '../helpers/roster.ts';

const run = promisify(execFile);
const bin = path.resolve(import.meta.dirname, '../../bin/ssp.js');
let ctx: TestContext;
let url: string;
let tenant: SeededTenant;

before(async () => {
  ctx = await startTestApp('pglite');
  await ctx.app.listen({ host: '127.0.0.1', port: 0 });
  url = `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`;
  tenant = await seedTenant(ctx);
  const pushed = await pushRoster(ctx, tenant, {
    students: [
      { email: 'Ada@example.edu', student_id_ext: 'S-1', first_name: 'Ada', last_name: 'Lovelace' },
      { email: 'grace@example.edu', student_id_ext: 'S-2', first_name: '=Grace', last_name: 'Hopper' },
    ],
  });
  assert.equal(pushed.statusCode, 200, pushed.body);
});
after(() => ctx.close());

async function ssp(...args: string[]) {
  const stdout = await runSsp(url, args);
  return stdout;
}

test('every command and option has a description', () => {
  const missing: string[] = [];
  const walk = (command: Command, trail: string) => {
    for (const sub of command.commands) {
      const name = `${trail} ${sub.name()}`.trim();
      if (!sub.description()) missing.push(name);
      for (const option of sub.options) if (!option.description) missing.push(`${name} ${option.flags}`);
      walk(sub, name);
    }
  };
  for (const option of program.options) if (!option.description) missing.push(option.flags);
  walk(program, '');
  assert.deepEqual(missing, []);
});

test('students are found by email, external id or a prefix; the output is JSON when piped', async () => {
  const byEmail = JSON.parse(await ssp('students', tenant.slug, '--email', 'ADA@example.edu'));
  assert.deepEqual(
    byEmail.items.map((s: { student_id_ext: string }) => s.student_id_ext),
    ['S-1'],
  );
  const byExt = JSON.parse(await ssp('students', tenant.slug, '--ext', 'S-2'));
  assert.deepEqual(
    byExt.items.map((s: { email: string }) => s.email),
    ['grace@example.edu'],
  );
  const byName = JSON.parse(await ssp('--json', 'students', tenant.slug, '--q', 'hop'));
  assert.equal(byName.items.length, 1);
  const paged = JSON.parse(await ssp('students', tenant.slug, '--limit', '1'));
  const next = JSON.parse(await ssp('students', tenant.slug, '--limit', '1', '--cursor', paged.next_cursor));
  assert.deepEqual(
    [paged.items[0].email, next.items[0].email, next.next_cursor],
    ['Ada@example.edu', 'grace@example.edu', null],
  );
});

test('the students CSV is written as it arrives', async () => {
  const csv = await ssp('students', tenant.slug, '--csv');
  const lines = csv.split('\r\n');
  assert.match(lines[0], /^id,email,student_id_ext,first_name,/);
  assert.equal(lines.length, 4);
  assert.match(csv, /,grace@example\.edu,S-2,'=Grace,Hopper,/);
});

test('a cohort is shown by id', async () => {
  const cohort = JSON.parse(await ssp('cohorts', 'show', tenant.slug, tenant.cohortId));
  assert.equal(cohort.id, tenant.cohortId);
  assert.equal(cohort.name, 'Cohort A');
  assert.equal(cohort.clock, 'cohort');
});

test('a help request is created by student email', async () => {
  const created = JSON.parse(
    await ssp('help-requests', 'create', tenant.slug, 'grace@example.edu', '--priority', 'high'),
  );
  assert.equal(created.priority, 'high');
  const [grace] = JSON.parse(await ssp('students', tenant.slug, '--ext', 'S-2')).items;
  assert.equal(created.student_id, grace.id);
});

test('people are invited with comma-separated roles and permissions, by an institution path', async () => {
  const invited = JSON.parse(
    await ssp(
      'people',
      'invite',
      tenant.slug,
      'lin@example.edu',
      'Lin',
      '--roles',
      'admin, staff',
      '--permissions',
      'manage_integrations',
    ),
  ) as { id: string; roles: string[]; permissions: string[] };
  assert.deepEqual([...invited.roles].sort(), ['admin', 'staff']);
  assert.deepEqual(invited.permissions, ['manage_integrations']);
  const updated = JSON.parse(
    await ssp('people', 'update', tenant.slug, invited.id, '--roles', 'staff,', '--permissions', ''),
  ) as { roles: string[]; permissions: string[] };
  assert.deepEqual(updated.roles, ['staff']);
  assert.deepEqual(updated.permissions, []);
});

test('an id is one path segment: an id that walks elsewhere is not found', async () => {
  // Without encoding, "x/../../runs" would be resolved by the URL parser into the runs listing.
  await assert.rejects(
    runSsp(url, ['full-syncs', 'show', tenant.slug, 'x/../../runs']),
    (error: { stderr: string }) => {
      assert.match(error.stderr, /404 not_found: no full sync x\/\.\.\/\.\.\/runs/);
      return true;
    },
  );
});

test('operator-reset refuses to create a database where there is none', async () => {
  const dataDir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ssp-reset-')), 'data');
  const env = { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', OPERATOR_TOKEN: '' };
  await assert.rejects(
    run(process.execPath, [bin, 'operator-reset'], { env }),
    (error: { code: number; stderr: string; stdout: string }) => {
      assert.equal(error.code, 1);
      assert.match(error.stderr, /no embedded database in .*data/);
      assert.equal(error.stdout, '');
      return true;
    },
  );
  assert.equal(fs.existsSync(dataDir), false, 'nothing was created');
});

test('npx ssp prints no warnings when npm runs on an older Node than the pinned one', async (t) => {
  // The machine's own npm and Node, as a person typing `npx ssp` runs them.
  const systemNode = '/usr/bin/node';
  const npx = '/usr/lib/node_modules/npm/bin/npx-cli.js';
  if (!fs.existsSync(systemNode) || !fs.existsSync(npx)) return t.skip('no system npm here');
  const { stdout: version } = await run(systemNode, ['--version']);
  if (Number(version.slice(1).split('.')[0]) >= 24) return t.skip('the system Node is not older');
  const { stdout, stderr } = await run(systemNode, [npx, 'ssp', '--help'], {
    cwd: path.resolve(import.meta.dirname, '../..'),
    env: { ...process.env, PATH: `/usr/bin:/bin` },
  });
  assert.match(stdout, /Usage: ssp/);
  assert.equal(stderr, '');
});
