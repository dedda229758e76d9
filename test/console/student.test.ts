// A student's console page (who they are, their help requests, their enrolments; staff and
// admins; another institution's student, an unknown and a malformed id are the not-found page),
// the admin API's read of one student, and a held full sync's page paging through its departing
// students: every one of 1,200 read exactly once, the sync itself read without them.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { describeEachDatabase, seedTenant } from '../helpers/app.ts';
import { seedConsoleData } from '../helpers/console-data.ts';
import { type Browser, operatorBrowser, personBrowser } from '../helpers/people.ts';
import { recordEmptyFinalPage } from '../helpers/roster.ts';

/** The "Next page" link of a page, unescaped. */
function nextLink(html: string): string | undefined {
  return html.match(/<a href="([^"]+)">Next page<\/a>/)?.[1].replaceAll('&amp;', '&');
}

/** The emails of the departing students' table of a full sync's page. */
function departingOf(html: string): string[] {
  const section = html.match(/<section[^>]*aria-labelledby="students-title"[\s\S]*?<\/section>/)?.[0] ?? '';
  return [...section.matchAll(/<td><a href="[^"]+">([^<]+)<\/a><\/td>/g)].map((m) => m[1]);
}

describeEachDatabase(
  'console student page',
  (ctx) => {
    test("a student's page shows who they are, their requests and enrolments; staff read it", async () => {
      const tenant = await seedTenant(ctx());
      await seedConsoleData(ctx(), tenant);
      const domain = `${tenant.slug}.example.edu`;
      const api = `/admin/v1/institutions/${tenant.slug}`;
      const found = await ctx().admin('GET', `${api}/students?q=ada@`);
      const ada = found.json().items[0];
      for (const [summary, priority] of [
        ['Older question about fees', 'normal'],
        ['Newer question about housing', 'high'],
      ]) {
        const created = await ctx().admin('POST', `${api}/help-requests`, {
          student_email: `ada@${domain}`,
          summary,
          priority,
          category: 'financial',
        });
        assert.equal(created.statusCode, 201, created.body);
      }
      // Someone else's request is not theirs.
      await ctx().admin('POST', `${api}/help-requests`, {
        student_email: `grace@${domain}`,
        summary: 'Grace',
      });

      // The API's read of one student.
      const read = await ctx().admin('GET', `${api}/students/${ada.id}`);
      assert.equal(read.statusCode, 200);
      assert.deepEqual(read.json(), ada);

      const staff = await personBrowser(ctx(), tenant, { roles: ['staff'] });
      const admin = await personBrowser(ctx(), tenant, { roles: ['admin'] });
      const url = `/console/${tenant.slug}/students/${ada.id}`;
      for (const reader of [staff, admin]) {
        const page = await reader.request('GET', url);
        assert.equal(page.statusCode, 200, page.body.slice(0, 300));
        assert.match(page.body, /<h1 class="wrap">Ada Lovelace<\/h1>/);
        assert.match(page.body, new RegExp(`ada@${domain}`));
        assert.match(page.body, /S-ADA/);
        assert.match(page.body, /BSCI/);
        assert.match(page.body, /City/);
        // Newest first, each linking to the inbox's page; Grace's request is not here.
        const requests = page.body.match(/<table id="requests"[\s\S]*?<\/table>/)?.[0] ?? '';
        const summaries = [...requests.matchAll(/href="\/console\/[^"]+\/inbox\/[0-9a-f-]{36}">([^<]+)</g)];
        assert.deepEqual(
          summaries.map((m) => m[1]),
          ['Newer question about housing', 'Older question about fees'],
        );
        assert.match(requests, /financial/);
        assert.match(requests, /badge high/);
        assert.doesNotMatch(page.body, /Grace/);
        const enrolments = page.body.match(/<table id="student-enrolments"[\s\S]*?<\/table>/)?.[0] ?? '';
        assert.match(enrolments, /2026-S1<\/td><td>BIO101<\/td><td>enrolled/);
        assert.match(enrolments, /2026-S2<\/td><td>BIO101<\/td><td>enrolled/);
        assert.doesNotMatch(enrolments, /NURS101/);
        // The cohort, with its clock; its own page (an admin's) is linked for admins only.
        assert.match(page.body, /cohort: the cohort starts on a date not set yet/);
        const cohortLink = new RegExp(`href="/console/${tenant.slug}/cohorts/${tenant.cohortId}"`);
        if (reader === admin) assert.match(page.body, cohortLink);
        else assert.doesNotMatch(page.body, cohortLink);
      }

      // The listing links each row to the student's page.
      const listing = await staff.request('GET', `/console/${tenant.slug}/students?q=ada@`);
      assert.match(listing.body, new RegExp(`<a href="${url}">ada@${domain}</a>`));
    });

    test("another institution's student, an unknown and a malformed id are the not-found page", async () => {
      const tenant = await seedTenant(ctx());
      const other = await seedTenant(ctx());
      await seedConsoleData(ctx(), tenant);
      await seedConsoleData(ctx(), other);
      const theirs = (await ctx().admin('GET', `/admin/v1/institutions/${other.slug}/students?q=ada@`)).json()
        .items[0];
      const mine = (await ctx().admin('GET', `/admin/v1/institutions/${tenant.slug}/students?q=ada@`)).json()
        .items[0];
      const admin = await personBrowser(ctx(), tenant, { roles: ['admin'] });
      const outsider = await personBrowser(ctx(), other, { roles: ['admin'] });

      // The API: another institution's student answers exactly as a missing one.
      const api = `/admin/v1/institutions/${tenant.slug}/students`;
      const foreign = await ctx().admin('GET', `${api}/${theirs.id}`);
      const unknownId = randomUUID();
      const unknown = await ctx().admin('GET', `${api}/${unknownId}`);
      assert.equal(foreign.statusCode, 404);
      assert.equal(foreign.json().error, 'student_not_found');
      assert.equal(foreign.body.replace(theirs.id, 'X'), unknown.body.replace(unknownId, 'X'));
      assert.equal((await ctx().admin('GET', `${api}/not-an-id`)).statusCode, 400);

      for (const id of [theirs.id, unknownId, 'not-an-id', `${mine.id}x`]) {
        const page = await admin.request('GET', `/console/${tenant.slug}/students/${encodeURIComponent(id)}`);
        assert.equal(page.statusCode, 404, id);
        assert.match(page.headers['content-type'] as string, /text\/html/);
        assert.doesNotMatch(page.body, /Lovelace/);
      }
      const elsewhere = await outsider.request('GET', `/console/${tenant.slug}/students/${mine.id}`);
      assert.equal(elsewhere.statusCode, 404);
      assert.doesNotMatch(elsewhere.body, /Lovelace/);
    });

    test("a held full sync's page pages through 1,200 departing students, reading each once", async () => {
      const tenant = await seedTenant(ctx());
      const other = await seedTenant(ctx());
      await ctx().db.query(
        `INSERT INTO students (institution_id, cohort_id, email, student_id_ext)
       SELECT $1, $2, 'leaver' || lpad(n::text, 4, '0') || '@example.edu', 'L' || n FROM generate_series(1, 1200) n`,
        [tenant.institutionId, tenant.cohortId],
      );
      // A final page naming nobody: all 1,200 would depart, far over the threshold, so held.
      const held = await recordEmptyFinalPage(ctx(), tenant);
      assert.equal(held.status, 'held');
      assert.equal(held.departures, 1200);
      const api = `/admin/v1/institutions/${tenant.slug}/full-syncs`;
      const id = (await ctx().admin('GET', `${api}?status=held`)).json().items[0].id as string;

      // The API: the sync alone, and its departures a page at a time; another tenant's is not found.
      const alone = await ctx().admin('GET', `${api}/${id}?departing_students=false`);
      assert.equal(alone.statusCode, 200);
      assert.equal(alone.json().departing_students, undefined);
      assert.equal(alone.json().departures, 1200);
      const elsewhere = await ctx().admin(
        'GET',
        `/admin/v1/institutions/${other.slug}/full-syncs/${id}/departures`,
      );
      assert.equal(elsewhere.statusCode, 404);
      assert.equal(elsewhere.json().error, 'not_found');

      const admin = await personBrowser(ctx(), tenant, { roles: ['admin'] });
      const seen: string[] = [];
      let url: string | undefined = `/console/${tenant.slug}/full-syncs/${id}`;
      let pages = 0;
      while (url) {
        const response = await admin.request('GET', url);
        assert.equal(response.statusCode, 200, response.body.slice(0, 300));
        const emails = departingOf(response.body);
        assert.ok(emails.length > 0 && emails.length <= 100, `page ${pages + 1}: ${emails.length} rows`);
        // The confirm and discard actions are on every page.
        assert.match(response.body, /Confirm the departures…/);
        seen.push(...emails);
        url = nextLink(response.body);
        pages += 1;
      }
      assert.equal(pages, 12);
      assert.equal(seen.length, 1200);
      assert.equal(new Set(seen).size, 1200, 'every departing student exactly once');

      // A tampered cursor is a message above an empty list, not an error page.
      const tampered = await admin.request('GET', `/console/${tenant.slug}/full-syncs/${id}?cursor=nope`);
      assert.equal(tampered.statusCode, 400);
      assert.match(tampered.body, /<p class="error" role="alert">[^<_]+</);

      // The confirmation counts every departing student and names the first few.
      const asked = await ctx().app.inject({
        method: 'POST',
        url: `/console/${tenant.slug}/full-syncs/${id}/confirm`,
        headers: { cookie: admin.cookie, 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ _csrf: admin.csrf }).toString(),
      });
      assert.equal(asked.statusCode, 200, asked.body.slice(0, 300));
      assert.match(asked.body, /Full sync nightly: 1200 students\./);
      assert.match(asked.body, /<li>and 1180 more<\/li>/);
    });

    test('every console page takes a cursor as long as the API does, and shows its refusal', async () => {
      const tenant = await seedTenant(ctx());
      const admin = await personBrowser(ctx(), tenant, {
        roles: ['admin'],
        permissions: ['manage_integrations'],
      });
      const operator = await operatorBrowser(ctx());
      // Longer than the 200 characters some pages used to cap it at: the API judges it (not the
      // page's own querystring check), and the page says the link is out of date.
      const cursor = `${'A'.repeat(300)}.AAAAAAAA`;
      const hook = await ctx().admin('POST', `/admin/v1/institutions/${tenant.slug}/webhook-endpoints`, {
        url: 'http://127.0.0.1:9/hook',
      });
      assert.equal(hook.statusCode, 201, hook.body);
      const pages: [Browser, string][] = [
        [admin, `/console/${tenant.slug}/runs`],
        [admin, `/console/${tenant.slug}/cohorts`],
        [admin, `/console/${tenant.slug}/students`],
        [admin, `/console/${tenant.slug}/campuses`],
        [admin, `/console/${tenant.slug}/webhooks/${hook.json().id}`],
        [operator, '/console/'],
      ];
      for (const [browser, path] of pages) {
        const response = await browser.request('GET', `${path}?cursor=${cursor}`);
        assert.ok([200, 400].includes(response.statusCode), `${path}: ${response.body.slice(0, 200)}`);
        assert.match(response.body, /<p class="error" role="alert">[^<_]+</, path);
        assert.match(response.body, /<nav class="side"/, `${path}: the page itself`);
      }
    });
  },
  // The webhook endpoint of the cursor test listens on the loopback address.
  { config: { allowLoopbackOutbound: true } },
);
