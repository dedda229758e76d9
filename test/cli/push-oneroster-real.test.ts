// ssp push oneroster on deltas and on the shapes real exports have: a delta never drops a
// change (users without their roles, enrollments in classes the delta omits), tobedeleted
// users counted, the manifest's version, year-long classes, identifiers, grades as programs,
// two sections of one course and term in either order, and students without an email.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { describeEachDatabase, seedTenant } from '../helpers/app.ts';
import { listeningApp } from '../helpers/cli.ts';
import { studentIdsOf } from '../helpers/roster.ts';
import {
  csvText,
  oneRosterBundle,
  pushOneRoster,
  readErrorsCsv,
  scratchDir,
  tenantWithBulkPush,
  writeFolder,
} from './push-helpers.ts';

type Files = Record<string, string>;

/** The rows of a generated CSV file (no quoted values in them), edited and written back. */
function edit(files: Files, name: string, change: (rows: string[][]) => string[][]): void {
  const rows = files[name]
    .trim()
    .split('\n')
    .map((l) => l.split(','));
  files[name] = csvText(change(rows));
}

/** Sets a column of every data row (by header name) where `where` holds. */
function setColumn(rows: string[][], column: string, value: (row: string[]) => string | undefined) {
  const at = rows[0].indexOf(column);
  for (const row of rows.slice(1)) {
    const v = value(row);
    if (v !== undefined) row[at] = v;
  }
  return rows;
}

function manifest(modes: Record<string, 'bulk' | 'delta'>, version = '1.2'): string {
  const all = ['academicSessions', 'classes', 'courses', 'enrollments', 'orgs', 'users', 'roles'];
  return csvText([
    ['propertyName', 'value'],
    ['manifest.version', '1.0'],
    ...(version ? [['oneroster.version', version]] : []),
    ...all.map((f) => [`file.${f}`, modes[f] ?? 'absent']),
  ]);
}

describeEachDatabase('ssp push oneroster: deltas and real exports', (context) => {
  const server = listeningApp(context);
  const { list } = server;

  test('a delta from another machine never drops a change: users without roles rows, enrollments in omitted classes', async () => {
    const { tenant, dir } = await tenantWithBulkPush(server, 6, 'bulk');
    assert.ok(!fs.existsSync(path.join(dir, `.ssp-oneroster-${tenant.slug}.json`)), 'no memory file');
    const { rows: kept } = await server.ctx.db.query(
      "SELECT 1 FROM oneroster_memory WHERE institution_id = $1 AND kind = 'user'",
      [tenant.institutionId],
    );
    assert.equal(kept.length, 7, 'the service keeps the memory: six students and the teacher');
    // The delta runs on another machine: a folder of its own, nothing of the first push's.
    const elsewhere = scratchDir();

    // The delta: six name changes (students 0-5) and the teacher's, with no roles rows; one
    // unknown user; a new enrollment of student 1 in a class (and course) the delta omits.
    const full = oneRosterBundle({ students: 6 });
    const delta: Files = { 'users.csv': full['users.csv'], 'enrollments.csv': full['enrollments.csv'] };
    edit(delta, 'users.csv', (rows) => {
      setColumn(rows, 'givenName', (r) => `Renamed${r[0]}`);
      rows.push([...rows[1]].map((v, i) => (i === 0 ? 'u-99' : i === 9 ? 'S99' : v)));
      return rows;
    });
    edit(delta, 'enrollments.csv', (rows) => [
      rows[0],
      ['e-new', 'active', '2026-03-01', 'cl-102-a', 'org-city', 'u-1', 'student', 'false', '', ''],
    ]);
    delta['roles.csv'] = csvText([['sourcedId', 'status', 'userSourcedId', 'role', 'orgSourcedId']]);
    delta['manifest.csv'] = manifest({ users: 'delta', roles: 'delta', enrollments: 'delta' });
    const r = await pushOneRoster(
      server.url,
      tenant,
      elsewhere,
      writeFolder(path.join(elsewhere, 'd'), delta),
    );
    assert.equal(r.code, 2, r.stderr);
    const students = await list(tenant.slug, 'students');
    assert.equal(students.length, 6);
    assert.ok(
      students.every((s: { first_name: string }) => s.first_name.startsWith('Renamedu-')),
      'every name change applied',
    );
    const errors = readErrorsCsv(path.join(elsewhere, 'ssp-push-errors.csv'));
    assert.deepEqual(
      errors.slice(1).map((e) => [path.basename(e[0]), e[1], e[4]]),
      [['users.csv', '9', 'role_unknown']],
      'the unknown user is an error with its file and line',
    );
    assert.match(r.stdout, /1 users hold no student role/);
    const enrolments = await list(tenant.slug, 'enrolments');
    assert.ok(
      enrolments.some(
        (e: { unit_code: string; student_id_ext: string }) =>
          e.unit_code === 'NURS102' && e.student_id_ext === 'S1',
      ),
      'the enrollment in a class the delta omits is placed from the memory',
    );
  });

  test('tobedeleted users are counted even when their roles are tobedeleted too', async () => {
    const { tenant, dir } = await tenantWithBulkPush(server, 4, 'a');
    const files = oneRosterBundle({ students: 4, tobedeleted: [2] });
    edit(files, 'roles.csv', (rows) =>
      setColumn(rows, 'status', (r) => (r[3] === 'u-2' ? 'tobedeleted' : undefined)),
    );
    const r = await pushOneRoster(server.url, tenant, dir, writeFolder(path.join(dir, 'b'), files));
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /1 students marked tobedeleted were not pushed/);
    assert.equal((await list(tenant.slug, 'students')).length, 4, 'nobody deleted');
    const withdrawn = (await list(tenant.slug, 'enrolments')).filter(
      (e: { status: string }) => e.status === 'withdrawn',
    );
    assert.deepEqual(
      withdrawn.map((e: { student_id_ext: string }) => e.student_id_ext),
      ['S2'],
    );
  });

  test('real exports: version from the manifest, schoolYear classes, identifiers, grades, no emails', async () => {
    const tenant = await seedTenant(server.ctx);
    const dir = scratchDir();
    const files = oneRosterBundle({ students: 8 });
    // A 1.2 export keeping an empty `role` column in users.csv; grades; three without email.
    edit(files, 'users.csv', (rows) => {
      rows[0].push('role');
      for (const row of rows.slice(1)) row.push('');
      setColumn(rows, 'grades', (r) =>
        r[0].startsWith('u-') ? (Number(r[0].slice(2)) % 2 ? '10' : '09') : undefined,
      );
      setColumn(rows, 'email', (r) => (['u-5', 'u-6', 'u-7'].includes(r[0]) ? '' : undefined));
      setColumn(rows, 'identifier', (r) => (r[0] === 'u-4' ? '' : undefined));
      return rows;
    });
    // A year-long class pointing only at the schoolYear.
    edit(files, 'classes.csv', (rows) =>
      setColumn(rows, 'termSourcedIds', (r) => (r[0] === 'cl-102-a' ? 'as-2026' : undefined)),
    );
    const r = await pushOneRoster(
      server.url,
      tenant,
      dir,
      '--programs-from',
      'grades',
      writeFolder(path.join(dir, 'x'), files),
    );
    assert.equal(r.code, 2, r.stderr);
    const students = await list(tenant.slug, 'students');
    assert.deepEqual(studentIdsOf(students), ['S0', 'S1', 'S2', 'S3', 'u-4']);
    assert.equal(
      students.find((s: { student_id_ext: string }) => s.student_id_ext === 'S1').program_code,
      'grade-10',
    );
    assert.match(r.stdout, /1 students have no identifier/);
    const errors = readErrorsCsv(path.join(dir, 'ssp-push-errors.csv'));
    assert.equal(errors.length, 2, `students without email are one finding: ${JSON.stringify(errors)}`);
    assert.equal(errors[1][4], 'no_email');
    assert.match(errors[1][5], /^3 students have no email \(u-5, u-6, u-7\)/);
    const terms = (await list(tenant.slug, 'terms')).map((t: { term_code: string }) => t.term_code).sort();
    assert.deepEqual(terms, ['as-2026', 'as-2026-s1'], 'the schoolYear a class points at is a term');
    const enrolments = await list(tenant.slug, 'enrolments');
    assert.ok(enrolments.some((e: { term_code: string }) => e.term_code === 'as-2026'));
    assert.deepEqual(
      (await list(tenant.slug, 'programs')).map((p: { program_code: string }) => p.program_code).sort(),
      ['grade-09', 'grade-10'],
    );
  });

  test('two classes of one course and term, an old one tobedeleted: the same result in either order', async () => {
    for (const order of ['old-first', 'new-first']) {
      const tenant = await seedTenant(server.ctx);
      const dir = scratchDir();
      const files = oneRosterBundle({ students: 2 });
      edit(files, 'classes.csv', (rows) => {
        const old = rows.find((r) => r[0] === 'cl-101-a')!;
        old[1] = 'tobedeleted';
        rows.push(old.map((v, i) => (i === 0 ? 'cl-101-b' : i === 1 ? 'active' : v)));
        return rows;
      });
      edit(files, 'enrollments.csv', (rows) => {
        const head = rows[0];
        const oldRows = rows.slice(1).filter((r) => r[5] === 'u-1');
        const newRows = oldRows.map((r) => r.map((v, i) => (i === 0 ? `${v}-b` : i === 3 ? 'cl-101-b' : v)));
        const rest = rows.slice(1).filter((r) => r[5] !== 'u-1');
        return [
          head,
          ...rest,
          ...(order === 'old-first' ? [...oldRows, ...newRows] : [...newRows, ...oldRows]),
        ];
      });
      const r = await pushOneRoster(server.url, tenant, dir, writeFolder(path.join(dir, 'x'), files));
      assert.equal(r.code, 0, `${order}: ${r.stderr}${r.stdout}`);
      const mine = (await list(tenant.slug, 'enrolments')).filter(
        (e: { student_id_ext: string }) => e.student_id_ext === 'S1',
      );
      assert.deepEqual(
        mine.map((e: { unit_code: string; status: string }) => [e.unit_code, e.status]),
        [['NURS101', 'enrolled']],
        order,
      );
      assert.match(r.stdout, /1 withdrawals not sent/);
    }
  });
});
