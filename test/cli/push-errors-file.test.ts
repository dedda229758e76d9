// The CLI's errors file and the run's CSV on the same push: the same rows, line by line, with
// the same line of the file, code, field and keys, across pages; the CLI file also names the
// student the row was for.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { seedTenant } from '../helpers/app.ts';
import { cliServer } from '../helpers/cli.ts';
import { pushFor, readErrorsCsv, scratchDir, writeCsv } from './push-helpers.ts';

const server = cliServer();

const parse = (text: string) =>
  text
    .trim()
    .split('\n')
    .map((line) =>
      line.match(/("([^"]|"")*"|[^,]*)(,|$)/g)!.map((c) => c.replace(/,$/, '').replace(/^"|"$/g, '')),
    );

test('the errors file and the run CSV agree row by row; the errors file has the real code, field and student', async () => {
  const tenant = await seedTenant(server.ctx);
  const dir = scratchDir();
  writeCsv(dir, 'roster.csv', [
    ['email', 'student_id_ext', 'first_name', 'last_name'],
    ['ana@example.edu', 'S1', 'Ana', 'Lima'],
    ['not-an-email', 'S2', 'Ben', 'Okafor'],
    ['chloe@example.edu', 'S3', 'Chloé', 'Nguyen'],
    ['', 'S4', 'Dev', 'Patel'],
  ]);
  // Pages of two rows: the second error is on the second page, line 5 of the file.
  const r = await pushFor(server.url, tenant, dir, 'roster', 'roster.csv', '--page-size', '2');
  assert.equal(r.code, 2, r.stderr);
  const [head, ...cli] = readErrorsCsv(path.join(dir, 'ssp-push-errors.csv'));
  assert.deepEqual(head, ['file', 'line', 'section', 'column', 'code', 'message']);
  const full = parse(fs.readFileSync(path.join(dir, 'ssp-push-errors.csv'), 'utf8'));
  assert.deepEqual(full[0].slice(6, 9), ['email', 'student_id_ext', 'student']);
  assert.ok(
    cli.every((row) => row[4] !== 'rejected' && row[3] !== ''),
    'the real code and field, never "rejected" with no field',
  );
  assert.deepEqual(
    full.slice(1).map((row) => [row[1], row[6], row[7], row[8]]),
    [
      ['3', 'not-an-email', 'S2', 'Ben Okafor'],
      ['5', '', 'S4', 'Dev Patel'],
    ],
  );

  const runs = (await server.ctx.admin('GET', `/admin/v1/institutions/${tenant.slug}/runs`)).json().items;
  assert.equal(runs.length, 2, `a run a page: ${r.stdout}${JSON.stringify(runs)}`);
  const runRows: string[][] = [];
  let runHead: string[] = [];
  for (const run of [...runs].reverse()) {
    const csv = await server.ctx.admin(
      'GET',
      `/admin/v1/institutions/${tenant.slug}/runs/${run.id}/errors.csv`,
    );
    const [head, ...rows] = parse(csv.body);
    runHead = head;
    runRows.push(...rows);
  }
  const at = (name: string) => runHead.indexOf(name);
  assert.equal(runRows.length, cli.length, 'one line each');
  runRows.forEach((run, i) => {
    const mine = full[i + 1];
    assert.equal(run[at('line')], mine[1], 'one numbering: the line of the file');
    assert.equal(run[at('code')], mine[4]);
    assert.equal(run[at('field')], mine[3]);
    assert.equal(run[at('email')], mine[6]);
    assert.equal(run[at('student_id_ext')], mine[7]);
  });
});
