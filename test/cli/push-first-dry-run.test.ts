// A first push's dry run: enrolments that name terms and units of the same push are explained in
// one line per section, not one row error each; a term that is nowhere stays a row error.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { seedTenant } from '../helpers/app.ts';
import { cliServer } from '../helpers/cli.ts';
import { pushFor, readErrorsCsv, scratchDir, writeCsv } from './push-helpers.ts';

const server = cliServer();

test('a dry run of calendar and enrolments together says so in one line per section', async () => {
  const tenant = await seedTenant(server.ctx);
  const dir = scratchDir();
  const students = Array.from({ length: 4 }, (_, i) => [
    `s${i}@example.edu`,
    `S${i}`,
    `Given${i}`,
    `Family${i}`,
  ]);
  writeCsv(dir, 'roster.csv', [['email', 'student_id_ext', 'first_name', 'last_name'], ...students]);
  const roster = await pushFor(server.url, tenant, dir, 'roster', 'roster.csv');
  assert.equal(roster.code, 0, roster.stderr);

  writeCsv(dir, 'terms.csv', [
    ['term_code', 'name', 'start_date', 'end_date'],
    ['2027-S1', 'Semester 1, 2027', '2027-02-22', '2027-06-20'],
  ]);
  writeCsv(dir, 'units.csv', [
    ['unit_code', 'name'],
    ['NUR101', 'Foundations of Nursing'],
  ]);
  writeCsv(dir, 'enrolments.csv', [
    ['email', 'unit_code', 'term_code'],
    ...students.map(([email]) => [email, 'NUR101', '2027-S1']),
    ['s0@example.edu', 'NUR101', '2031-S9'],
  ]);
  const files = ['--terms', 'terms.csv', '--units', 'units.csv', '--enrolments', 'enrolments.csv'];
  const dry = await pushFor(server.url, tenant, dir, 'enrolments', ...files, '--dry-run');
  assert.equal(dry.code, 2, 'the term that is nowhere is still a row error');
  assert.match(
    dry.stdout,
    /\n5 enrolments refer to units this push would create; push the calendar \(terms and units\) for real first/,
  );
  assert.match(dry.stdout, /\n4 enrolments refer to terms this push would create; push the calendar/);
  assert.match(dry.stdout, /enrolments\s+5\s+0\s+0\s+0\s+1 \(\+4 below\)/);
  const errors = readErrorsCsv(path.join(dir, 'ssp-push-errors.csv'));
  assert.deepEqual(
    errors.map((r) => r.slice(1, 5)),
    [
      ['line', 'section', 'column', 'code'],
      ['6', 'enrolments', 'term_code', 'term_not_found'],
    ],
  );

  // Without the term that is nowhere, the dry run would succeed: exit 0, no errors file.
  writeCsv(dir, 'enrolments.csv', [
    ['email', 'unit_code', 'term_code'],
    ...students.map(([email]) => [email, 'NUR101', '2027-S1']),
  ]);
  fs.rmSync(path.join(dir, 'ssp-push-errors.csv'));
  const clean = await pushFor(server.url, tenant, dir, 'enrolments', ...files, '--dry-run');
  assert.equal(clean.code, 0, clean.stdout);
  assert.equal(fs.existsSync(path.join(dir, 'ssp-push-errors.csv')), false);

  // The real push creates the calendar first, so every enrolment is accepted.
  const real = await pushFor(server.url, tenant, dir, 'enrolments', ...files);
  assert.equal(real.code, 0, real.stdout + real.stderr);
  assert.match(real.stdout, /enrolments\s+4\s+4\s+0\s+0\s+0/);
});
