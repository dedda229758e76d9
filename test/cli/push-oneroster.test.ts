// ssp push oneroster: generated OneRoster 1.2 CSV bundles (folder and zip, bulk and delta)
// mapped onto the feeds, against the real service over HTTP.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { seedTenant } from '../helpers/app.ts';
import { cliServer } from '../helpers/cli.ts';
import { studentIdsOf } from '../helpers/roster.ts';
import {
  oneRosterBundle,
  pushInProcess,
  pushOneRoster,
  scratchDir,
  sspPush,
  tenantWithBulkPush,
  writeFolder,
  writeZip,
} from './push-helpers.ts';

describe('ssp push oneroster', () => {
  const server = cliServer();
  const { list } = server;

  test('a bulk bundle as a zip: taxonomy, calendar, units, roster, then enrolments (the real command)', async () => {
    const tenant = await seedTenant(server.ctx);
    const dir = scratchDir();
    await writeZip(path.join(dir, 'export.zip'), oneRosterBundle({ students: 12 }), 'oneroster/');
    const r = await sspPush(server.url, tenant.rosterSecret, dir, [
      'oneroster',
      '--institution',
      tenant.slug,
      '--cohort',
      tenant.cohortId,
      'export.zip',
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /OneRoster 1\.2 bundle/);
    assert.deepEqual(
      (await list(tenant.slug, 'programs')).map((p: { program_code: string }) => p.program_code),
      ['BN'],
    );
    assert.deepEqual((await list(tenant.slug, 'campuses')).map((c: { name: string }) => c.name).sort(), [
      'City Campus',
      'Riverside Campus',
    ]);
    assert.deepEqual(
      (await list(tenant.slug, 'terms')).map((t: { term_code: string }) => t.term_code),
      ['as-2026-s1'],
    );
    const units = await list(tenant.slug, 'units');
    assert.deepEqual(
      units
        .map((u: { unit_code: string; program_code: string | null; campus_name: string | null }) => [
          u.unit_code,
          u.program_code,
          u.campus_name,
        ])
        .sort(),
      [
        ['NURS101', 'BN', null],
        ['NURS102', null, 'City Campus'],
      ],
    );
    const students = await list(tenant.slug, 'students');
    assert.equal(students.length, 12, 'students only, not the teacher');
    const first = students.find((s: { email: string }) => s.email === 'student0@nbu.example.edu');
    assert.equal(first.student_id_ext, 'S0', 'the identifier by default');
    assert.equal(first.first_name, 'Given0');
    assert.equal(first.program_code, 'BN');
    assert.equal(first.campus_name, 'City Campus');
    const enrolments = await list(tenant.slug, 'enrolments');
    assert.equal(enrolments.length, 12, 'the teacher enrollment is not a student enrolment');
  });

  test('a folder with the mapping overridden; a delta bundle withdraws tobedeleted enrollments, deletes nothing', async () => {
    const tenant = await seedTenant(server.ctx);
    const other = await server.ctx.admin('POST', `/admin/v1/institutions/${tenant.slug}/cohorts`, {
      name: 'River cohort',
    });
    const riverCohort = other.json().id;
    const dir = scratchDir();
    const folder = writeFolder(path.join(dir, 'bulk'), oneRosterBundle({ students: 6 }));
    const args = [
      'oneroster',
      '--institution',
      tenant.slug,
      '--cohort',
      tenant.cohortId,
      '--cohort-for',
      `org-river=${riverCohort}`,
      '--student-id',
      'identifier',
      '--campus-org-types',
      'school',
      '--program-org-types',
      'department',
    ];
    const bulk = await pushInProcess(server.url, tenant.rosterSecret, dir, [...args, folder]);
    assert.equal(bulk.code, 0, bulk.stderr);
    const students = await list(tenant.slug, 'students');
    assert.deepEqual(studentIdsOf(students), ['S0', 'S1', 'S2', 'S3', 'S4', 'S5']);
    const inRiver = students.filter((s: { cohort_id: string }) => s.cohort_id === riverCohort);
    assert.equal(inRiver.length, 3, 'odd students study at Riverside');

    const deltaFolder = writeFolder(
      path.join(dir, 'delta'),
      oneRosterBundle({ students: 6, mode: 'delta', tobedeleted: [1] }),
    );
    const delta = await pushInProcess(server.url, tenant.rosterSecret, dir, [...args, deltaFolder]);
    assert.equal(delta.code, 0, delta.stderr);
    assert.match(delta.stdout, /1 students marked tobedeleted were not pushed/);
    const enrolments = await list(tenant.slug, 'enrolments');
    const withdrawn = enrolments.filter((e: { status: string }) => e.status === 'withdrawn');
    assert.equal(withdrawn.length, 1);
    assert.equal((await list(tenant.slug, 'students')).length, 6, 'nobody deleted');

    const refused = await pushInProcess(server.url, tenant.rosterSecret, dir, [
      ...args,
      '--full-sync',
      deltaFolder,
    ]);
    assert.equal(refused.code, 65);
    assert.match(refused.stderr, /--full-sync needs users\.csv as bulk/);
  });

  test('a bulk bundle with --full-sync departs tobedeleted and absent students', async () => {
    const tenant = await seedTenant(server.ctx);
    const dir = scratchDir();
    const base = ['oneroster', '--institution', tenant.slug, '--cohort', tenant.cohortId];
    const first = await pushOneRoster(
      server.url,
      tenant,
      dir,
      writeFolder(path.join(dir, 'a'), oneRosterBundle({ students: 20 })),
    );
    assert.equal(first.code, 0, first.stderr);
    const second = await pushInProcess(server.url, tenant.rosterSecret, dir, [
      ...base,
      '--full-sync',
      writeFolder(path.join(dir, 'b'), oneRosterBundle({ students: 20, tobedeleted: [4] })),
    ]);
    assert.equal(second.code, 0, second.stderr);
    assert.match(second.stdout, /applied, 1 departed of 20/);
    const departed = (await list(tenant.slug, 'students')).filter(
      (s: { departed_at: string | null }) => s.departed_at,
    );
    assert.deepEqual(
      departed.map((s: { student_id_ext: string }) => s.student_id_ext),
      ['S4'],
    );
  });

  test('--full-sync keeps students whose email the export lost: named, not departed, not imported', async () => {
    const { tenant, dir } = await tenantWithBulkPush(server, 20, 'a');
    // The next export: students 3 and 7 lost their email, student 4 is tobedeleted.
    const files = oneRosterBundle({ students: 20, tobedeleted: [4] });
    for (const i of [3, 7])
      files['users.csv'] = files['users.csv'].replace(`student${i}@nbu.example.edu`, '');
    const second = await pushOneRoster(
      server.url,
      tenant,
      dir,
      '--full-sync',
      writeFolder(path.join(dir, 'b'), files),
    );
    assert.equal(second.code, 2, 'the students without an email are a finding (exit 2)');
    assert.match(second.stdout, /applied, 1 departed of 20/);
    assert.match(
      second.stdout,
      /2 students without an email were named in the full sync, so they do not depart/,
    );
    const errors = fs.readFileSync(path.join(dir, 'ssp-push-errors.csv'), 'utf8').trim().split('\n');
    assert.equal(errors.length, 2, `one no_email finding, no row error per student: ${errors.join('\n')}`);
    assert.match(errors[1], /no_email,"?2 students have no email \(u-3, u-7\)/);
    const students = await list(tenant.slug, 'students');
    const departed = students.filter((s: { departed_at: string | null }) => s.departed_at);
    assert.deepEqual(
      departed.map((s: { student_id_ext: string }) => s.student_id_ext),
      ['S4'],
      'S3 and S7 stay',
    );
    const kept = students.find((s: { student_id_ext: string }) => s.student_id_ext === 'S3');
    assert.equal(kept.email, 'student3@nbu.example.edu', 'left as they were');
  });
});
