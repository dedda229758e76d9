// The audit page: the admin audit and the help-request audit, filtered by person and the
// institution's dates, paged, exported as CSV with the same filters; admins only; another
// institution's entries never shown.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachDatabase } from '../helpers/app.ts';
import { createHelpRequest, seedHelpdesk } from '../helpers/helpdesk.ts';
import { type Browser, personBrowser } from '../helpers/people.ts';

describeEachDatabase('console: the audit page', (ctx) => {
  const get = async (browser: Browser, url: string, status = 200) => {
    const res = await ctx().app.inject({ method: 'GET', url, headers: { cookie: browser.cookie } });
    assert.equal(res.statusCode, status, `${url}: ${res.statusCode} ${res.body.slice(0, 300)}`);
    return res;
  };
  const rowsOf = (html: string) => (html.match(/<tbody>[\s\S]*?<\/tbody>/)?.[0].match(/<tr>/g) ?? []).length;

  test('who changed what and when, filtered, paged and exported', async () => {
    const tenant = await seedHelpdesk(ctx(), { syncSecret: false });
    const other = await seedHelpdesk(ctx(), { syncSecret: false });
    await ctx().admin('PATCH', `/admin/v1/institutions/${tenant.slug}`, { time_zone: 'America/New_York' });
    const admin = await personBrowser(ctx(), tenant, { roles: ['admin'], name: 'Ada Admin' });
    const staff = await personBrowser(ctx(), tenant, { roles: ['staff'], name: 'Sam Staff' });
    const otherAdmin = await personBrowser(ctx(), other, { roles: ['admin'], name: 'Other Admin' });

    // Changes by the admin (a cohort), by staff (a status), and in the other institution.
    const cohort = await admin.request('POST', `/admin/v1/institutions/${tenant.slug}/cohorts`, {
      name: '=Cohort B',
    });
    assert.equal(cohort.statusCode, 201, cohort.body);
    const request = await createHelpRequest(ctx(), tenant, { summary: 'Lost my timetable' });
    const id = (request as unknown as { id: string }).id;
    const changed = await staff.request(
      'POST',
      `/admin/v1/institutions/${tenant.slug}/help-requests/${id}/status`,
      {
        status: 'in_progress',
      },
    );
    assert.equal(changed.statusCode, 200, changed.body);
    await otherAdmin.request('POST', `/admin/v1/institutions/${other.slug}/cohorts`, { name: 'Elsewhere' });

    const base = `/console/${tenant.slug}/audit`;
    const page = (await get(admin, base)).body;
    assert.match(page, /Times are in the institution's time zone, <strong>America\/New_York<\/strong>/);
    assert.match(page, /Ada Admin/);
    assert.match(page, /Ada Admin created the cohort =Cohort B<br><span class="muted">through the API/);
    assert.match(page, /Sam Staff/);
    assert.match(page, /\d{4}-\d{2}-\d{2} \d{2}:\d{2} America\/New_York/);
    assert.doesNotMatch(page, /Other Admin/);
    // Every console page writes its times so: the inbox and a request's timeline too.
    assert.match(
      (await get(admin, `/console/${tenant.slug}/inbox`)).body,
      /\d{2}:\d{2} America\/New_York<\/td>/,
    );
    assert.match(
      (await get(admin, `/console/${tenant.slug}/inbox/${id}`)).body,
      /<dt>Created<\/dt><dd>[^<]+America\/New_York/,
    );

    // By person: only the staff member's change.
    const byStaff = (await get(admin, `${base}?person=${staff.personId}`)).body;
    assert.match(byStaff, /Sam Staff/);
    assert.doesNotMatch(byStaff, /Ada Admin created/);
    // A person of another institution matches no one here.
    assert.match((await get(admin, `${base}?person=${otherAdmin.personId}`)).body, /No entry matches/);

    // The help-request audit: raised, then the status change, in words.
    const help = (await get(admin, `${base}?kind=help_requests`)).body;
    assert.match(help, /Status New to In progress/);
    assert.match(help, /Raised \(New\)/);
    assert.match(help, new RegExp(`href="/console/${tenant.slug}/inbox/${id}">Lost my timetable`));
    assert.match(
      (await get(admin, `${base}?kind=help_requests&person=${staff.personId}`)).body,
      /In progress/,
    );

    // Dates are the institution's days: today there finds everything, a day long past nothing.
    const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/New_York' }).format(new Date());
    assert.ok(rowsOf((await get(admin, `${base}?from=${today}&to=${today}`)).body) >= 3);
    assert.match((await get(admin, `${base}?from=2020-01-01&to=2020-01-02`)).body, /No entry matches/);

    // Refused filters read as sentences on the page, never an error page.
    const refused = (await get(admin, `${base}?from=yesterday&person=nobody`)).body;
    assert.match(refused, /role="alert">[^<]*From must be a date/);
    assert.match(refused, /Choose a person from the list/);
    assert.match(
      (await get(admin, `${base}?from=2026-05-02&to=2026-05-01`)).body,
      /To must be the same day as From or later/,
    );

    // Paging: 60 more entries make a second page, every entry shown once.
    await ctx().db.query(
      `INSERT INTO admin_audit (institution_id, actor_kind, actor_id, actor, action, target, status, at)
       SELECT $1, 'person', $2, 'Ada Admin', 'PATCH /admin/v1/institutions/:slug/cohorts/:id', 'x' || g, 200,
              now() - make_interval(secs => g)
       FROM generate_series(1, 60) AS g`,
      [tenant.institutionId, admin.personId],
    );
    const first = (await get(admin, `${base}?person=${admin.personId}`)).body;
    assert.equal(rowsOf(first), 50);
    const next = /href="([^"]+cursor=[^"]+)">Next page/.exec(first)?.[1]?.replaceAll('&amp;', '&');
    assert.ok(next, 'a next page');
    const second = (await get(admin, next)).body;
    assert.equal(rowsOf(second), 11);
    assert.match(
      (await get(admin, `${base}?cursor=not-a-cursor`)).body,
      /role="alert">This link to a later page is out of date/,
    );

    // CSV: the same filters, every entry, formulas defused.
    const csv = await get(admin, `${base}.csv?person=${admin.personId}`);
    assert.match(String(csv.headers['content-type']), /^text\/csv/);
    const lines = csv.body.trim().split('\r\n');
    assert.equal(
      lines[0],
      'at,at_local,actor,actor_kind,actor_id,session_id,through,what,action,target,status,request_id',
    );
    // The same words as the page: the sentence, then the route for programs.
    assert.ok(
      lines.some((line) => line.includes(',API,Ada Admin created the cohort =Cohort B,POST /admin/v1/')),
      lines.join('\n'),
    );
    assert.equal(lines.length, 1 + 61);
    const helpCsv = (await get(admin, `${base}.csv?kind=help_requests`)).body;
    assert.match(helpCsv, /Status New to In progress/);

    // Staff may not read the audit.
    await get(staff, base, 403);
    await get(staff, `${base}.csv`, 403);
  });
});
