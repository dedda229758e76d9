// The push history in the console, fed by the real feeds: a push's row errors name their
// records by the keys they were sent with (page and CSV), its warnings are sentences, and the
// list marks full syncs and shows how long each push took.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachDatabase, seedTenant } from '../helpers/app.ts';
import { personBrowser } from '../helpers/people.ts';
import { pushEnrolments, pushRoster } from '../helpers/roster.ts';

describeEachDatabase('console push history: row keys, warning sentences, full syncs, durations', (ctx) => {
  test('a roster and an enrolments push with errors, as the console shows them', async () => {
    const tenant = await seedTenant(ctx());
    const roster = await pushRoster(ctx(), tenant, {
      sync_id: 'nightly-1',
      students: [
        { email: 'ada@example.edu', student_id_ext: 'S1', program_code: 'XYZ' },
        { email: 'not-an-email', student_id_ext: 'S2' },
        { student_id_ext: 'S3' },
        { email: 'ben@example.edu', student_id_ext: 'S4', program_code: 'xyz' },
      ],
    });
    assert.equal(roster.statusCode, 200, roster.body);
    const enrolments = await pushEnrolments(ctx(), tenant, {
      enrolments: [{ student_id_ext: 'S404', unit_code: 'NURS9', term_code: '2026-S1' }],
    });
    assert.equal(enrolments.statusCode, 200, enrolments.body);
    const admin = await personBrowser(ctx(), tenant, { roles: ['admin'] });
    const base = `/console/${tenant.slug}/runs`;

    const list = await admin.request('GET', base);
    assert.equal(list.statusCode, 200);
    assert.match(list.body, /<th scope="col">Took<\/th>/);
    assert.match(list.body, /<span class="badge">full sync<\/span>/);
    assert.match(list.body, /<td>\d+(\.\d)? s<\/td>/);

    const page = await admin.request('GET', `${base}/${roster.json().run_id}`);
    assert.equal(page.statusCode, 200);
    const head = /<table id="row-errors">[\s\S]*?<\/thead>/.exec(page.body)?.[0] ?? '';
    assert.match(
      head,
      /<th scope="col">Line<\/th><th scope="col">Email<\/th><th scope="col">Student ID<\/th><th scope="col">Field<\/th><th scope="col">Problem<\/th>/,
    );
    // Rows are numbered by their line (no `lines` sent: their 1-based place in the request).
    assert.match(page.body, /<td>2<\/td><td class="wrap">not-an-email<\/td><td class="wrap">S2<\/td>/);
    assert.match(page.body, /<td>3<\/td><td class="wrap"><\/td><td class="wrap">S3<\/td>/);
    assert.match(
      page.body,
      /<li>2 rows name program code XYZ, which is not in your programs: lines 1, 4\. They imported without a program/,
    );
    assert.match(page.body, /<dt>Full sync<\/dt><dd>a page of the full sync nightly-1 \(open\)<\/dd>/);
    const csv = await admin.request('GET', `${base}/${roster.json().run_id}/errors.csv`);
    const lines = csv.body.split('\r\n');
    assert.match(lines[0], /^kind,line,email,student_id_ext,code,field,message/);
    assert.match(lines[1], /^error,2,not-an-email,S2,invalid_field,email,/);
    assert.match(lines[2], /^error,3,,S3,missing_field,email,/);

    const run = await admin.request('GET', `${base}/${enrolments.json().run_id}`);
    assert.match(
      run.body,
      /<th scope="col">Section<\/th><th scope="col">Line<\/th><th scope="col">Email<\/th><th scope="col">Student ID<\/th><th scope="col">Unit code<\/th><th scope="col">Term code<\/th>/,
    );
    assert.match(
      run.body,
      /<td>Enrolments<\/td><td>1<\/td><td class="wrap"><\/td><td class="wrap">S404<\/td><td class="wrap">NURS9<\/td><td class="wrap">2026-S1<\/td>/,
    );
  });

  test('a row error names its student by name beside the keys, on the page and in the CSV', async () => {
    const tenant = await seedTenant(ctx());
    const roster = await pushRoster(ctx(), tenant, {
      students: [
        { email: 'ada@example.edu', student_id_ext: 'S1', first_name: 'Ada', last_name: 'Lovelace' },
      ],
    });
    assert.equal(roster.statusCode, 200, roster.body);
    const enrolments = await pushEnrolments(ctx(), tenant, {
      enrolments: [
        { student_id_ext: 'S1', unit_code: 'NURS9', term_code: '2026-S1' },
        { student_id_ext: 'S404', unit_code: 'NURS9', term_code: '2026-S1' },
      ],
    });
    assert.equal(enrolments.statusCode, 200, enrolments.body);
    const admin = await personBrowser(ctx(), tenant, { roles: ['admin'] });
    const base = `/console/${tenant.slug}/runs/${enrolments.json().run_id}`;
    const page = await admin.request('GET', base);
    assert.match(page.body, /<th scope="col">Student ID<\/th><th scope="col">Student<\/th>/);
    assert.match(page.body, /<td class="wrap">S1<\/td><td class="wrap">Ada Lovelace<\/td>/);
    assert.match(page.body, /<td class="wrap">S404<\/td><td class="wrap"><\/td>/);
    const csv = (await admin.request('GET', `${base}/errors.csv`)).body.split('\r\n');
    assert.match(csv[0], /student_id_ext,student,unit_code/);
    assert.ok(
      csv.some((line) => line.includes(',S1,Ada Lovelace,NURS9,')),
      csv.join('\n'),
    );
  });
});
