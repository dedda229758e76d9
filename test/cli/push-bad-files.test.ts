// ssp push and awkward or broken files: what is accepted, and what stops with file, line and column.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { seedTenant } from '../helpers/app.ts';
import { cliServer } from '../helpers/cli.ts';
import {
  oneRosterBundle,
  pushFor,
  pushInProcess,
  pushOneRoster,
  readErrorsCsv,
  scratchDir,
  writeFolder,
  writeZip,
} from './push-helpers.ts';

describe('ssp push: awkward and bad files', () => {
  const server = cliServer();

  const roster = async (content: string | Buffer, ...extra: string[]) => {
    const tenant = await seedTenant(server.ctx);
    const dir = scratchDir();
    const file = path.join(dir, 'roster.csv');
    fs.writeFileSync(file, content);
    const result = await pushFor(server.url, tenant, dir, 'roster', ...extra, file);
    const students = async () =>
      (await server.ctx.admin('GET', `/admin/v1/institutions/${tenant.slug}/students?limit=100`)).json()
        .items as {
        email: string;
        first_name: string | null;
      }[];
    return { ...result, file, dir, students };
  };

  test('a UTF-8 byte-order mark and CRLF line ends are read as they should be', async () => {
    const r = await roster(
      '\uFEFFemail,student_id_ext,first_name\r\na@example.edu,A1,Ana\r\nb@example.edu,B1,Ben\r\n',
    );
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /roster\.csv:1: UTF-8 byte-order mark skipped/);
    assert.deepEqual((await r.students()).map((s) => s.first_name).sort(), ['Ana', 'Ben']);
  });

  test('a semicolon-delimited file is detected and said so', async () => {
    const r = await roster('email;student_id_ext;first_name\na@example.edu;A1;Ana, Maria\n');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /roster\.csv:1: columns are separated by ";"/);
    assert.deepEqual(
      (await r.students()).map((s) => s.first_name),
      ['Ana, Maria'],
    );
  });

  test('quoted newlines keep the following lines numbered as in the file', async () => {
    const r = await roster(
      'email,student_id_ext,first_name\n"a@example.edu",A1,"Ana\nMaria"\nnot-an-email,B1,Ben\nc@example.edu,C1,Cy,extra\n',
    );
    assert.equal(r.code, 2, r.stderr);
    const errors = readErrorsCsv(path.join(r.dir, 'ssp-push-errors.csv'));
    const byLine = Object.fromEntries(errors.slice(1).map((e) => [e[1], e]));
    assert.match(byLine['4'][5], /email/);
    assert.equal(byLine['5'][4], 'bad_record');
    assert.match(byLine['5'][5], /4 values but the header has 3 columns/);
    assert.deepEqual(
      (await r.students()).map((s) => s.first_name),
      ['Ana\nMaria'],
    );
  });

  test('an unclosed quote stops with the line it opened on', async () => {
    const r = await roster(
      'email,student_id_ext,first_name\na@example.edu,A1,Ana\nb@example.edu,B1,"Ben\nc@example.edu,C1,Cy\n',
    );
    assert.equal(r.code, 65);
    assert.match(r.stderr, /roster\.csv:3: a quoted value opened on this line is never closed/);
  });

  test('Latin-1 bytes stop with line and column, and --encoding latin1 reads them', async () => {
    const bytes = Buffer.concat([
      Buffer.from('email,student_id_ext,first_name\na@example.edu,A1,Ana\nj@example.edu,J1,Jos'),
      Buffer.from([0xe9]),
      Buffer.from('\n'),
    ]);
    const bad = await roster(bytes);
    assert.equal(bad.code, 65);
    assert.match(
      bad.stderr,
      /roster\.csv:3:column 21: byte 0xE9 is not UTF-8; the file looks Latin-1.*--encoding latin1/,
    );
    const good = await roster(bytes, '--encoding', 'latin1');
    assert.equal(good.code, 0, good.stderr);
    assert.ok((await good.students()).some((s) => s.first_name === 'José'));
  });

  test('a missing or misspelt header names the column and suggests the name', async () => {
    const misspelt = await roster('emial,student_id_ext,frist_name\na@example.edu,A1,Ana\n');
    assert.equal(misspelt.code, 65);
    assert.match(misspelt.stderr, /roster\.csv:1: the header does not fit a roster file/);
    assert.match(misspelt.stderr, /column 1: unknown column "emial": did you mean "email"\?/);
    assert.match(misspelt.stderr, /column 3: unknown column "frist_name": did you mean "first_name"\?/);
    assert.match(
      misspelt.stderr,
      /missing column "email" \(column 1 "emial" looks like a misspelling of it\)/,
    );
    const missing = await roster('email,first_name\na@example.edu,Ana\n');
    assert.equal(missing.code, 65);
    assert.match(missing.stderr, /missing column "student_id_ext"/);
    const empty = await roster('');
    assert.equal(empty.code, 65);
    assert.match(empty.stderr, /roster\.csv:1: the file is empty/);
    const nothingSent = await server.ctx.admin('GET', '/admin/v1/institutions');
    assert.equal(nothingSent.statusCode, 200);
  });

  test('a OneRoster manifest listing a missing file names the manifest line and column (folder and zip)', async () => {
    const tenant = await seedTenant(server.ctx);
    const dir = scratchDir();
    const files = oneRosterBundle({ students: 2, missingFile: 'users' });
    const folder = writeFolder(path.join(dir, 'bundle'), files);
    const zip = await writeZip(path.join(dir, 'bundle.zip'), files, 'export/');
    for (const location of [folder, zip]) {
      const r = await pushOneRoster(server.url, tenant, dir, location);
      assert.equal(r.code, 65);
      assert.match(
        r.stderr,
        /manifest\.csv:14:column value: the manifest lists users\.csv as bulk, but the bundle has no users\.csv/,
      );
    }
    const noManifest = writeFolder(path.join(dir, 'plain'), { 'users.csv': 'sourcedId\n' });
    const r = await pushInProcess(server.url, tenant.rosterSecret, dir, [
      'oneroster',
      '--institution',
      tenant.slug,
      noManifest,
    ]);
    assert.equal(r.code, 65);
    assert.match(r.stderr, /no manifest\.csv/);
  });
});
