// ssp push taxonomy / roster / enrolments from CSV files, against the real service over HTTP.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { seedTenant } from '../helpers/app.ts';
import { cliServer } from '../helpers/cli.ts';
import { csvText, pushFor, readErrorsCsv, scratchDir, sspPush, writeCsv } from './push-helpers.ts';

describe('ssp push from CSV files', () => {
  const server = cliServer();

  test('taxonomy, roster, then enrolments: the integration order, with row errors naming file and line', async () => {
    const tenant = await seedTenant(server.ctx);
    const dir = scratchDir();
    writeCsv(dir, 'programs.csv', [
      ['program_code', 'name', 'coordinator_name'],
      ['BN', 'Bachelor of Nursing', 'Dr Ada Moss'],
      ['BSC', 'Bachelor of Science', ''],
    ]);
    writeCsv(dir, 'campuses.csv', [['name'], ['City'], ['Riverside']]);
    const taxonomy = await pushFor(
      server.url,
      tenant,
      dir,
      'taxonomy',
      '--programs',
      'programs.csv',
      '--campuses',
      'campuses.csv',
    );
    assert.equal(taxonomy.code, 0, taxonomy.stderr);
    assert.match(taxonomy.stdout, /programs\.csv\s+programs\s+2\s+2/);

    writeCsv(dir, 'roster.csv', [
      [
        'email',
        'student_id_ext',
        'first_name',
        'last_name',
        'program_code',
        'campus_name',
        'first_in_family',
        'start_date',
      ],
      ['mia@example.edu', 'S1', 'Mia', 'Chen', 'BN', 'City', 'true', '2026-02-23'],
      ['', 'S2', 'No', 'Email', 'BN', 'City', '', ''],
      ['sam@example.edu', 'S3', 'Sam', 'Lee', 'BSC', 'Riverside', 'false', ''],
    ]);
    const roster = await pushFor(server.url, tenant, dir, 'roster', 'roster.csv');
    assert.equal(roster.code, 2, 'some rows rejected');
    assert.match(roster.stdout, /roster\.csv\s+roster\s+3\s+2\s+0\s+0\s+1/);
    const errors = readErrorsCsv(path.join(dir, 'ssp-push-errors.csv'));
    assert.deepEqual(errors[0], ['file', 'line', 'section', 'column', 'code', 'message']);
    assert.deepEqual(errors[1].slice(0, 3), ['roster.csv', '3', 'roster']);
    assert.match(errors[1][5], /email/);

    writeCsv(dir, 'terms.csv', [
      ['term_code', 'name', 'start_date', 'end_date'],
      ['2026-S1', 'Semester 1', '2026-02-23', '2026-06-19'],
    ]);
    writeCsv(dir, 'units.csv', [
      ['unit_code', 'name', 'program_code', 'campus_name'],
      ['NURS101', 'Foundations', 'BN', 'City'],
    ]);
    writeCsv(dir, 'enrolments.csv', [
      ['email', 'student_id_ext', 'unit_code', 'term_code', 'status'],
      ['mia@example.edu', '', 'NURS101', '2026-S1', 'enrolled'],
      ['', 'S3', 'NURS101', '2026-S1', ''],
      ['', 'S404', 'NURS101', '2026-S1', ''],
    ]);
    const enrolments = await pushFor(
      server.url,
      tenant,
      dir,
      'enrolments',
      '--terms',
      'terms.csv',
      '--units',
      'units.csv',
      '--enrolments',
      'enrolments.csv',
    );
    assert.equal(enrolments.code, 2, enrolments.stderr);
    assert.match(enrolments.stdout, /enrolments\.csv\s+enrolments\s+3\s+2\s+0\s+0\s+1/);
    const enrolErrors = readErrorsCsv(path.join(dir, 'ssp-push-errors.csv'));
    assert.deepEqual(enrolErrors[1].slice(0, 5), [
      'enrolments.csv',
      '4',
      'enrolments',
      'student_id_ext',
      'student_not_found',
    ]);
    const listed = await server.ctx.admin('GET', `/admin/v1/institutions/${tenant.slug}/enrolments`);
    assert.equal(listed.json().items.length, 2);
    assert.equal(
      fs.existsSync(path.join(dir, '.ssp-push-state.json')),
      false,
      'state removed after a finished push',
    );
  });

  test('--dry-run prints tables of would-create, unknown codes, duplicates and bad dates, and writes nothing', async () => {
    const tenant = await seedTenant(server.ctx);
    const dir = scratchDir();
    writeCsv(dir, 'roster.csv', [
      ['email', 'student_id_ext', 'program_code', 'campus_name', 'start_date'],
      ['a@example.edu', 'A1', 'NOPE', 'Moon', '2026-02-30'],
      ['b@example.edu', 'B1', 'NOPE', '', ''],
      ['a@example.edu', 'A2', '', '', ''],
    ]);
    const result = await pushFor(server.url, tenant, dir, 'roster', '--dry-run', 'roster.csv');
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stdout, /would create/);
    assert.match(result.stdout, /roster\.csv\s+roster\s+3\s+2\s+0\s+0\s+1/);
    assert.match(
      result.stdout,
      /Unknown program codes[^\n]*\n[^\n]*\n[^\n]*\n\s+NOPE\s+2\s+roster\.csv:2 roster\.csv:3/,
    );
    assert.match(result.stdout, /Unknown campus values[\s\S]*Moon\s+1\s+roster\.csv:2/);
    assert.match(result.stdout, /Duplicates[\s\S]*a@example\.edu\s+2\s+roster\.csv:2 roster\.csv:4/);
    assert.match(result.stdout, /Bad dates[\s\S]*roster\.csv:2\s+2026-02-30/);
    const students = await server.ctx.admin('GET', `/admin/v1/institutions/${tenant.slug}/students`);
    assert.equal(students.json().items.length, 0);
  });

  test('--map reads another export; --full-sync departs the students the file no longer names', async () => {
    const tenant = await seedTenant(server.ctx);
    const dir = scratchDir();
    const file = path.join(dir, 'export.csv');
    const header = ['Email Address', 'Student Number', 'Given Name', 'Notes'];
    fs.writeFileSync(
      file,
      csvText([
        header,
        ...Array.from({ length: 30 }, (_, i) => [`s${i}@example.edu`, `N${i}`, `G${i}`, 'x']),
      ]),
    );
    const map = [
      '--map',
      'Email Address=email,Student Number=student_id_ext',
      '--map',
      'Given Name=first_name',
      '--map',
      'Notes=',
    ];
    const first = await pushFor(server.url, tenant, dir, 'roster', ...map, '--page-size', '7', 'export.csv');
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /export\.csv\s+roster\s+30\s+30\s+0\s+0\s+0\s+5/);

    // 29 of 30 still present: one departure, under the 10% hold threshold.
    fs.writeFileSync(
      file,
      csvText([
        header,
        ...Array.from({ length: 29 }, (_, i) => [`s${i}@example.edu`, `N${i}`, `G${i}`, 'x']),
      ]),
    );
    const full = await pushFor(
      server.url,
      tenant,
      dir,
      'roster',
      ...map,
      '--page-size',
      '7',
      '--full-sync',
      'export.csv',
    );
    assert.equal(full.code, 0, full.stderr);
    assert.match(full.stdout, /Full sync ssp-push-[\w-]+: applied, 1 departed of 30/);
    const students = await server.ctx.admin(
      'GET',
      `/admin/v1/institutions/${tenant.slug}/students?limit=100`,
    );
    const departed = students.json().items.filter((s: { departed_at: string | null }) => s.departed_at);
    assert.deepEqual(
      departed.map((s: { email: string }) => s.email),
      ['s29@example.edu'],
    );
  });

  test('no secret, or a wrong one: exit 1 with the reason', async () => {
    const tenant = await seedTenant(server.ctx);
    const dir = scratchDir();
    writeCsv(dir, 'r.csv', [
      ['email', 'student_id_ext'],
      ['a@example.edu', 'A'],
    ]);
    const none = await sspPush(server.url, undefined, dir, ['roster', '--cohort', tenant.cohortId, 'r.csv']);
    assert.equal(none.code, 77);
    assert.match(none.stderr, /SSP_ROSTER_SECRET/);
    const wrong = await sspPush(server.url, 'ssp_roster_wrong', dir, [
      'roster',
      '--cohort',
      tenant.cohortId,
      'r.csv',
    ]);
    assert.equal(wrong.code, 77);
    assert.match(wrong.stderr, /401 unauthorized/);
  });
});
