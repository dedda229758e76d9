// A help request shows its student: in the admin API (the listing's rows and a request's page)
// and in the console (every inbox row and the request page), with where they are in their six
// weeks and their other open requests; a crisis request's page lists the crisis contacts; the
// timeline speaks in words and names who acted.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachDatabase } from '../helpers/app.ts';
import { createHelpRequest, seedHelpdesk } from '../helpers/helpdesk.ts';
import { personBrowser } from '../helpers/people.ts';

const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 10);

describeEachDatabase('a help request shows its student', (ctx) => {
  test('API and console: who the student is, their week, their other open requests; crisis contacts', async () => {
    const tenant = await seedHelpdesk(ctx(), { students: 2, syncSecret: false });
    const other = await seedHelpdesk(ctx(), { students: 1, syncSecret: false });
    const [ada, bo] = tenant.studentIds as [string, string];
    const { rows } = await ctx().db.query<{ program: string; campus: string }>(
      `WITH p AS (INSERT INTO programs (institution_id, code, name) VALUES ($1, 'NURS', 'Nursing') RETURNING id),
            c AS (INSERT INTO campuses (institution_id, name) VALUES ($1, 'North Campus') RETURNING id)
       SELECT p.id AS program, c.id AS campus FROM p, c`,
      [tenant.institutionId],
    );
    await ctx().db.query(
      `UPDATE students SET first_name = 'Ada', last_name = 'Okafor', program_id = $2, campus_id = $3 WHERE id = $1`,
      [ada, rows[0]?.program, rows[0]?.campus],
    );
    // Day 15 of the six weeks: week 3.
    const cohort = await ctx().admin(
      'PATCH',
      `/admin/v1/institutions/${tenant.slug}/cohorts/${tenant.cohortId}`,
      {
        start_date: daysAgo(14),
      },
    );
    assert.equal(cohort.statusCode, 200, cohort.body);
    const contacts = await ctx().admin('PUT', `/admin/v1/institutions/${tenant.slug}/crisis-contacts`, {
      contacts: [{ name: 'Campus security', phone: '555 0100', hours: 'Day and night' }],
    });
    assert.equal(contacts.statusCode, 200, contacts.body);

    const crisis = await createHelpRequest(ctx(), tenant, { priority: 'crisis', summary: 'I am not safe' });
    const earlier = await createHelpRequest(ctx(), tenant, { summary: 'Timetable question' });
    const resolved = await createHelpRequest(ctx(), tenant, { summary: 'Old question' });
    await createHelpRequest(ctx(), tenant, { student: 1, summary: 'Someone else' });
    const crisisId = (crisis as unknown as { id: string }).id;
    const earlierId = (earlier as unknown as { id: string }).id;
    const resolvedId = (resolved as unknown as { id: string }).id;
    const staffChange = await ctx().admin(
      'POST',
      `/admin/v1/institutions/${tenant.slug}/help-requests/${resolvedId}/status`,
      { status: 'resolved', staff: 'Desk' },
    );
    assert.equal(staffChange.statusCode, 200, staffChange.body);

    // The API: a request's student with their week and other open requests.
    const detail = (
      await ctx().admin('GET', `/admin/v1/institutions/${tenant.slug}/help-requests/${crisisId}`)
    ).json();
    assert.equal(detail.student.id, ada);
    assert.equal(detail.student.name, 'Ada Okafor');
    assert.match(detail.student.email, /@example\.edu$/);
    assert.deepEqual(detail.student.cohort, { id: tenant.cohortId, name: 'Cohort A' });
    assert.equal(detail.student.program.code, 'NURS');
    assert.equal(detail.student.campus.name, 'North Campus');
    assert.deepEqual(detail.student.six_weeks, { state: 'during', week: 3, start: daysAgo(14) });
    assert.deepEqual(
      detail.student.other_open_requests.map((r: { id: string }) => r.id),
      [earlierId],
      'the resolved one and the other student’s are not listed',
    );
    // The listing: every row carries its student (one query for the page, not one per row).
    const listing = (await ctx().admin('GET', `/admin/v1/institutions/${tenant.slug}/help-requests`)).json();
    assert.equal(listing.items.length, 4);
    for (const item of listing.items) assert.ok(item.student?.email, JSON.stringify(item));
    assert.deepEqual(
      new Set(listing.items.map((i: { student: { id: string } }) => i.student.id)),
      new Set([ada, bo]),
    );
    // Another institution's request is not found, student or not.
    const foreign = await ctx().admin(
      'GET',
      `/admin/v1/institutions/${other.slug}/help-requests/${crisisId}`,
    );
    assert.equal(foreign.statusCode, 404);

    // The console: the inbox row and the request page show the student.
    const staff = await personBrowser(ctx(), tenant, { roles: ['staff'], name: 'Kai Lee' });
    const get = async (url: string) => {
      const res = await ctx().app.inject({ method: 'GET', url, headers: { cookie: staff.cookie } });
      assert.equal(res.statusCode, 200, `${url}: ${res.body.slice(0, 300)}`);
      return res.body;
    };
    const inbox = await get(`/console/${tenant.slug}/inbox`);
    assert.match(inbox, new RegExp(`href="/console/${tenant.slug}/students/${ada}">Ada Okafor</a>`));
    assert.match(inbox, /Cohort A · Nursing · North Campus · Week 3 of 6/);
    assert.match(inbox, /<td data-label="Status">New<\/td>/);

    const page = await get(`/console/${tenant.slug}/inbox/${crisisId}`);
    assert.match(page, /<h2 id="contacts-title">Crisis contacts<\/h2>/);
    assert.match(page, /Campus security/);
    assert.match(page, /<dt>Six weeks<\/dt><dd>Week 3 of 6<\/dd>/);
    assert.match(page, /<dt>Program<\/dt><dd>Nursing \(NURS\)<\/dd>/);
    assert.match(
      page,
      new RegExp(`href="/console/${tenant.slug}/inbox/${earlierId}">Timetable question</a>`),
    );
    assert.match(page, /<strong>Raised<\/strong> by Student app/);

    // A staff change reads as a sentence naming who made it.
    const form = new URLSearchParams({ _csrf: staff.csrf, status: 'in_progress' }).toString();
    const changed = await ctx().app.inject({
      method: 'POST',
      url: `/console/${tenant.slug}/inbox/${crisisId}/status`,
      headers: { cookie: staff.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: form,
    });
    assert.equal(changed.statusCode, 303, changed.body);
    const after = await get(`/console/${tenant.slug}/inbox/${crisisId}`);
    assert.match(after, /<strong>Status changed from New to In progress<\/strong> by Kai Lee/);
    assert.match(after, /<dd id="current-status">In progress<\/dd>/);

    // A normal request's page has no crisis contacts panel.
    assert.doesNotMatch(await get(`/console/${tenant.slug}/inbox/${earlierId}`), /contacts-title/);
  });
});
