// The console's Data pages without a browser: each page answers from the API's listings, the
// filters narrow, paging follows the API's cursor and reads every student once, a tampered
// cursor or malformed filter is a message on the page (never a 500), the CSV export streams
// the same filters with formula-safe cells, who may read and who may merge is the API's policy,
// and another institution's data pages are the not-found page.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachDatabase, seedTenant, type TestContext } from '../helpers/app.ts';
import { seedConsoleData } from '../helpers/console-data.ts';
import { type Browser, operatorBrowser, personBrowser } from '../helpers/people.ts';

/** The emails in the students table of a page. */
function emailsOf(html: string): string[] {
  const table = html.match(/<table id="students"[\s\S]*?<\/table>/)?.[0] ?? '';
  return [...table.matchAll(/<td class="email"><a href="[^"]+">([^<]+)<\/a><\/td>/g)].map((m) => m[1]);
}

/** The "Next page" link of a page, unescaped. */
function nextLink(html: string): string | undefined {
  return html.match(/<a href="([^"]+)">Next page<\/a>/)?.[1].replaceAll('&amp;', '&');
}

/** A form post from the console's pages, with the CSRF token. */
function formPost(ctx: TestContext, browser: Browser, url: string, fields: Record<string, string>) {
  return ctx.app.inject({
    method: 'POST',
    url,
    headers: { cookie: browser.cookie, 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ _csrf: browser.csrf, ...fields }).toString(),
  });
}

describeEachDatabase('console data pages', (ctx) => {
  test('each page answers from the listings and the filters narrow', async () => {
    const tenant = await seedTenant(ctx());
    await seedConsoleData(ctx(), tenant);
    const admin = await personBrowser(ctx(), tenant, { roles: ['admin'] });
    const page = async (path: string) => {
      const response = await admin.request('GET', `/console/${tenant.slug}/${path}`);
      assert.equal(response.statusCode, 200, `${path}: ${response.body.slice(0, 300)}`);
      return response.body;
    };
    const domain = `${tenant.slug}.example.edu`;
    const all = emailsOf(await page('students'));
    assert.equal(all.length, 4);
    assert.deepEqual(emailsOf(await page('students?q=ada')), [`ada@${domain}`, `grace@${domain}`]);
    assert.deepEqual(emailsOf(await page('students?q=S-GRACE')), [`grace@${domain}`]);
    assert.deepEqual(emailsOf(await page('students?program=nurs')), [`formula@${domain}`, `grace@${domain}`]);
    assert.deepEqual(emailsOf(await page('students?campus=Riverside&status=active')), [`formula@${domain}`]);
    assert.deepEqual(emailsOf(await page('students?status=departed')), [`canada@${domain}`]);
    assert.equal(emailsOf(await page(`students?cohort_id=${tenant.cohortId}`)).length, 4);
    const students = await page('students?q=ada&program=BSCI');
    assert.deepEqual(emailsOf(students), [`ada@${domain}`]);
    // The export link carries the same filters; the filters stay filled in.
    assert.match(
      students,
      /href="\/console\/[^"]+\/students\.csv\?q=ada&amp;program=BSCI" download>Export CSV/,
    );
    assert.match(students, /<option value="BSCI" selected>/);

    const programs = await page('programs');
    assert.match(programs, /Bachelor of Science/);
    assert.match(programs, /Dr Ada Moss/);
    assert.match(await page('terms'), /2026-S2[\s\S]*2026-07-20/);
    const units = await page('units?program_code=NURS');
    assert.match(units, /NURS101/);
    assert.doesNotMatch(units, /BIO101/);
    const enrolments = await page('enrolments?term_code=2026-S1&status=withdrawn');
    assert.match(enrolments, new RegExp(`grace@${domain}`));
    assert.doesNotMatch(enrolments, new RegExp(`ada@${domain}`));
    const campuses = await page('campuses');
    assert.match(campuses, /Riverside/);
    // The navigation's Data group, with the current page marked.
    assert.match(campuses, /<span class="group-label"[^>]*>Data<\/span>/);
    assert.match(campuses, /href="\/console\/[^"]+\/campuses" aria-current="page">Campuses</);
  });

  test('paging follows the cursor; a tampered cursor or a malformed filter is a message, not a 500', async () => {
    const tenant = await seedTenant(ctx());
    const seeded = await seedConsoleData(ctx(), tenant, { numbered: 120 });
    const admin = await personBrowser(ctx(), tenant, { roles: ['admin'] });
    const seen: string[] = [];
    let url: string | undefined = `/console/${tenant.slug}/students`;
    let pages = 0;
    let second: string | undefined;
    while (url) {
      const response = await admin.request('GET', url);
      assert.equal(response.statusCode, 200, response.body.slice(0, 300));
      seen.push(...emailsOf(response.body));
      url = nextLink(response.body);
      if (pages === 0) second = url;
      pages += 1;
    }
    assert.equal(pages, 3);
    assert.equal(seen.length, seeded.emails.length, 'every student exactly once');
    assert.deepEqual([...seen].sort(), [...seeded.emails].sort());

    // A cursor edited by hand, one of another listing, and a malformed filter.
    const cursor = new URL(`http://x${second}`).searchParams.get('cursor') ?? '';
    const edited = `${cursor.slice(0, 10)}${cursor[10] === 'A' ? 'B' : 'A'}${cursor.slice(11)}`;
    const programsCursor = (
      await ctx().admin('GET', `/admin/v1/institutions/${tenant.slug}/programs?limit=1`)
    ).json().next_cursor as string;
    for (const [path, code] of [
      [`students?cursor=${encodeURIComponent(edited)}`, 'invalid_cursor'],
      [`students?cursor=${encodeURIComponent(programsCursor)}`, 'invalid_cursor'],
      ['students?cursor=not-a-cursor', 'invalid_cursor'],
      ['students?cohort_id=not-an-id', ''],
      ['students?status=gone', ''],
      ['enrolments?status=lost', ''],
      [`units?cursor=${encodeURIComponent(programsCursor)}`, 'invalid_cursor'],
      [`campuses?cursor=${encodeURIComponent(edited)}`, 'invalid_cursor'],
    ]) {
      const response = await admin.request('GET', `/console/${tenant.slug}/${path}`);
      assert.equal(response.statusCode, 400, path);
      assert.match(response.headers['content-type'] as string, /text\/html/);
      assert.match(response.body, /<p class="error" role="alert">/, path);
      // Said in words: the code is not in the sentence.
      assert.doesNotMatch(response.body, new RegExp(`\\(${code || '[a-z]+_[a-z_]+'}\\)`), path);
      assert.match(response.body, /<nav class="side"/, `${path}: the page itself, with its navigation`);
    }
    // Absurd input the console refuses itself is still a page, not a 500.
    const long = await admin.request('GET', `/console/${tenant.slug}/students?q=${'a'.repeat(2000)}`);
    assert.equal(long.statusCode, 400);
    assert.match(long.headers['content-type'] as string, /text\/html/);
  });

  test('the CSV export streams every matching student with formula-safe cells', async () => {
    const tenant = await seedTenant(ctx());
    const seeded = await seedConsoleData(ctx(), tenant, { numbered: 30 });
    const admin = await personBrowser(ctx(), tenant, { roles: ['admin'] });
    const all = await admin.request('GET', `/console/${tenant.slug}/students.csv`);
    assert.equal(all.statusCode, 200, all.body.slice(0, 300));
    assert.match(all.headers['content-type'] as string, /^text\/csv/);
    assert.match(all.headers['content-disposition'] as string, /attachment; filename=".+-students\.csv"/);
    assert.equal(all.headers['content-length'], undefined, 'streamed, not sent as one buffer');
    const lines = all.body.trimEnd().split('\r\n');
    assert.match(lines[0], /^id,email,student_id_ext,first_name,last_name/);
    assert.equal(lines.length, seeded.emails.length + 1);

    const nursing = await admin.request('GET', `/console/${tenant.slug}/students.csv?program=NURS&q=form`);
    const rows = nursing.body.trimEnd().split('\r\n');
    assert.equal(rows.length, 2, nursing.body);
    assert.match(rows[1], /,"'=HYPERLINK\(""x""\)",/);
    assert.ok(!/,=/.test(nursing.body), 'no cell starts with =');

    const refused = await admin.request('GET', `/console/${tenant.slug}/students.csv?cohort_id=nope`);
    assert.equal(refused.statusCode, 400);
    assert.match(refused.headers['content-type'] as string, /text\/html/);
  });

  test('staff and admins read; only the operator merges, after confirming; another tenant is not found', async () => {
    const tenant = await seedTenant(ctx());
    const other = await seedTenant(ctx());
    await seedConsoleData(ctx(), tenant);
    const staff = await personBrowser(ctx(), tenant, { roles: ['staff'] });
    const admin = await personBrowser(ctx(), tenant, { roles: ['admin'] });
    const outsider = await personBrowser(ctx(), other, { roles: ['admin'] });
    const operator = await operatorBrowser(ctx());
    const campuses = `/console/${tenant.slug}/campuses`;

    // Reading is the API's `read` access: staff and admins; the merge form only for the operator.
    for (const reader of [staff, admin]) {
      const page = await reader.request('GET', campuses);
      assert.equal(page.statusCode, 200);
      assert.doesNotMatch(page.body, /Merge two campuses/);
      const refused = await formPost(ctx(), reader, `${campuses}/merge`, {
        from: 'Northern',
        into: 'North',
        confirmed: 'yes',
      });
      // Refused by the request context before the page runs: the not-allowed page, with the code.
      assert.equal(refused.statusCode, 403);
      assert.match(refused.body, /Only the platform operator may do this/);
      assert.match(refused.body, /<code>forbidden<\/code>/);
    }
    for (const path of [
      'students',
      'students.csv',
      'programs',
      'campuses',
      'terms',
      'units',
      'enrolments',
      'cohorts',
    ]) {
      const response = await outsider.request('GET', `/console/${tenant.slug}/${path}`);
      assert.equal(response.statusCode, 404, path);
      assert.doesNotMatch(response.body, /Riverside|ada@/);
    }
    const forged = await ctx().app.inject({
      method: 'POST',
      url: `${campuses}/merge`,
      headers: { cookie: operator.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'from=Northern&into=North&confirmed=yes',
    });
    assert.equal(forged.statusCode, 403);

    // The operator: both campuses chosen, a confirmation, then the merge.
    const form = await operator.request('GET', campuses);
    assert.match(form.body, /Merge two campuses/);
    const ids = Object.fromEntries(
      [...form.body.matchAll(/<option value="([0-9a-f-]{36})">([^<]+)<\/option>/g)].map((m) => [m[2], m[1]]),
    );
    const missing = await formPost(ctx(), operator, `${campuses}/merge`, { from: ids.Northern, into: '' });
    assert.equal(missing.statusCode, 400);
    assert.match(missing.body, /id="merge-into-error">Choose the campus that stays/);
    const asked = await formPost(ctx(), operator, `${campuses}/merge`, {
      from: ids.Northern,
      into: ids.North,
    });
    assert.equal(asked.statusCode, 200);
    assert.match(asked.body, /Merge Northern into North\?/);
    assert.match(asked.body, /name="confirmed" value="yes"/);
    const itself = await formPost(ctx(), operator, `${campuses}/merge`, {
      from: ids.North,
      into: ids.North,
      confirmed: 'yes',
    });
    assert.equal(itself.statusCode, 400);
    assert.match(itself.body, /id="merge-into-error">a campus cannot be merged into itself</);
    const unknown = await formPost(ctx(), operator, `${campuses}/merge`, {
      from: 'No Such Campus',
      into: ids.North,
      confirmed: 'yes',
    });
    assert.equal(unknown.statusCode, 404);
    assert.match(unknown.body, /id="merge-from-error">no campus &quot;No Such Campus&quot;</);
    const done = await formPost(ctx(), operator, `${campuses}/merge`, {
      from: ids.Northern,
      into: ids.North,
      confirmed: 'yes',
    });
    assert.equal(done.statusCode, 303, done.body);
    assert.equal(done.headers.location, `${campuses}?done=campuses_merged`);
    const after = await operator.request('GET', `${campuses}?done=campuses_merged`);
    assert.match(after.body, /The campuses were merged/);
    assert.match(after.body, /<td>North<\/td>\s*<td>Northern<\/td>/);
    const audit = await ctx().admin('GET', `/admin/v1/institutions/${tenant.slug}/operator-audit`);
    assert.equal(audit.json().items[0].action, 'campus.merge');
    // Staff see the alias too (a read), and the Data group in their navigation.
    const staffView = await staff.request('GET', campuses);
    assert.match(staffView.body, /Names kept by merges/);
    assert.match(staffView.body, />Data<\/span>/);
  });
});
