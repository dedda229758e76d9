// The console's calendar feeds, crisis contacts and cohorts pages without a browser: each page
// answers, its forms change things through the admin API (and its audit), the API's refusals are
// shown next to the field, CSRF is required, staff are refused and another institution's URL is
// the not-found page. Feeds are served by a real local HTTP server (loopback allowed in tests).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ics } from '../calendar/calendars.ts';
import { describeCalendar, sharedFeedServer } from '../calendar/helpers.ts';
import { seedTenant } from '../helpers/app.ts';
import { operatorBrowser, personBrowser, postForm } from '../helpers/people.ts';

const server = sharedFeedServer();

// The calendar test clock stands at 2026-09-01T06:00Z: these fall within the feed page's 60 days.
const term = ics([
  'BEGIN:VCALENDAR',
  'VERSION:2.0',
  'PRODID:-//Test//Console//EN',
  'BEGIN:VEVENT',
  'UID:welcome@example.edu',
  'DTSTART:20260907T080000Z',
  'DTEND:20260907T090000Z',
  'SUMMARY:Welcome lecture',
  'LOCATION:Main hall',
  'END:VEVENT',
  'BEGIN:VEVENT',
  'UID:library@example.edu',
  'DTSTART;VALUE=DATE:20260910',
  'SUMMARY:Library tour day',
  'END:VEVENT',
  'END:VCALENDAR',
]);

describeCalendar('console: calendar feeds, crisis contacts, cohorts', (ctx) => {
  test('calendar feeds: add (the guard refusal inline), fetch now, edit, history, events, delete', async () => {
    const tenant = await seedTenant(ctx(), { rosterSecret: false });
    const admin = await personBrowser(ctx(), tenant, { roles: ['admin'] });
    const page = `/console/${tenant.slug}/calendar-feeds`;
    server.routes.set('/console-term.ics', { body: term, headers: { etag: '"v1"' } });

    const empty = await admin.request('GET', page);
    assert.equal(empty.statusCode, 200, empty.body);
    assert.match(empty.body, /No calendar feed yet/);
    assert.match(empty.body, new RegExp(`href="${page}"[^>]*aria-current="page"`));

    // Refused by the URL guard: the API's reason next to the URL field, the values kept.
    const refused = await postForm(ctx(), admin, page, [
      ['url', 'https://10.1.2.3/term.ics'],
      ['name', 'Private'],
      ['refresh_minutes', '30'],
    ]);
    assert.equal(refused.statusCode, 400);
    assert.match(refused.body, /id="add-url-error">[^<_]*private[^<_]*</);
    assert.match(refused.body, /value="https:\/\/10\.1\.2\.3\/term\.ics"/);
    assert.match(refused.body, /value="Private"/);
    const badMinutes = await postForm(ctx(), admin, page, [
      ['url', server.url('/console-term.ics')],
      ['refresh_minutes', '1'],
    ]);
    assert.equal(badMinutes.statusCode, 400);
    assert.match(badMinutes.body, /id="add-refresh-error">Minutes between fetches must be \d+ or more</);

    const added = await postForm(ctx(), admin, page, [
      ['url', server.url('/console-term.ics')],
      ['name', 'Term dates'],
      ['refresh_minutes', '120'],
    ]);
    assert.equal(added.statusCode, 303, added.body);
    const feedPage = (added.headers.location as string).split('?')[0];
    const id = feedPage.split('/').at(-1) as string;
    const listed = await admin.request('GET', page);
    assert.match(listed.body, /Term dates/);
    assert.match(listed.body, /120 min/);
    assert.match(listed.body, /not fetched yet/);

    // Fetch now: the redirect names the record, the page shows it, the events are listed.
    const fetched = await postForm(ctx(), admin, `${feedPage}/fetch`, []);
    assert.equal(fetched.statusCode, 303, fetched.body);
    assert.match(fetched.headers.location as string, /\?fetch=\d+$/);
    const shown = await admin.request('GET', fetched.headers.location as string);
    assert.equal(shown.statusCode, 200, shown.body);
    assert.match(shown.body, /Fetched: ok/);
    assert.match(shown.body, /2 added, 0 updated, 0 removed; 2 stored/);
    assert.match(shown.body, /Welcome lecture/);
    assert.match(shown.body, /Main hall/);
    assert.match(shown.body, /2026-09-10/);

    // Edit: a refusal next to its field, then a change through PATCH.
    const badEdit = await postForm(ctx(), admin, feedPage, [
      ['url', 'http://169.254.169.254/latest'],
      ['name', 'Term dates'],
      ['refresh_minutes', '120'],
    ]);
    assert.equal(badEdit.statusCode, 400);
    assert.match(
      badEdit.body,
      /id="edit-url-error">169\.254\.169\.254 is a [^<_]* address, which the service does not call</,
    );
    const edited = await postForm(ctx(), admin, feedPage, [
      ['url', server.url('/console-term.ics')],
      ['name', 'Autumn term'],
      ['refresh_minutes', '90'],
    ]);
    assert.equal(edited.statusCode, 303, edited.body);
    const api = `/admin/v1/institutions/${tenant.slug}/calendar-feeds/${id}`;
    const stored = (await ctx().admin('GET', api)).json();
    assert.deepEqual([stored.name, stored.refresh_minutes, stored.health], ['Autumn term', 90, 'ok']);

    // A failing feed: the page and the health page say why, and when it is tried again.
    server.routes.set('/console-term.ics', { status: 500, body: 'down' });
    const failing = await postForm(ctx(), admin, `${feedPage}/fetch`, []);
    const failed = await admin.request('GET', failing.headers.location as string);
    assert.match(failed.body, /Fetched: failed/);
    assert.match(failed.body, /failing since/);
    const health = await admin.request('GET', `/console/${tenant.slug}/`);
    assert.match(health.body, new RegExp(`<a href="${feedPage}">Calendar feed Autumn term: failing since`));
    assert.match(health.body, /next attempt/);

    // Deleting asks first; CSRF is required.
    const forged = await postForm(ctx(), admin, `${feedPage}/delete`, [['confirmed', 'yes']], false);
    assert.equal(forged.statusCode, 403);
    assert.match(forged.body, /csrf_invalid/);
    const asked = await postForm(ctx(), admin, `${feedPage}/delete`, []);
    assert.equal(asked.statusCode, 200);
    assert.match(asked.body, /Delete this calendar feed\?/);
    assert.equal((await ctx().admin('GET', api)).statusCode, 200);
    const deleted = await postForm(ctx(), admin, `${feedPage}/delete`, [['confirmed', 'yes']]);
    assert.equal(deleted.statusCode, 303);
    assert.equal(deleted.headers.location, `${page}?done=calendar_feed_deleted`);
    assert.equal((await ctx().admin('GET', api)).statusCode, 404);
    const audit = (await ctx().admin('GET', `/admin/v1/institutions/${tenant.slug}/audit`)).json();
    assert.ok(
      audit.items.some(
        (e: { action: string; actor_id: string }) =>
          e.action === 'POST /console/:slug/calendar-feeds/:id/delete' && e.actor_id === admin.personId,
      ),
    );
    for (const missing of ['not-an-id', '00000000-0000-4000-8000-000000000000'])
      assert.equal((await admin.request('GET', `${page}/${missing}`)).statusCode, 404, missing);
  });

  test('crisis contacts: rows saved in order, a row added without scripts, errors next to the field', async () => {
    const tenant = await seedTenant(ctx(), { rosterSecret: false });
    const admin = await personBrowser(ctx(), tenant, { roles: ['admin'] });
    const page = `/console/${tenant.slug}/crisis-contacts`;
    const api = `/admin/v1/institutions/${tenant.slug}/crisis-contacts`;
    const first = await admin.request('GET', page);
    assert.equal(first.statusCode, 200, first.body);
    assert.match(first.body, /name="rows" value="1"/);
    // Removing means something only for a saved contact: a blank row has no such box.
    assert.doesNotMatch(first.body, /Remove this contact/);

    const more = await postForm(ctx(), admin, page, [
      ['rows', '1'],
      ['name_0', 'Campus security'],
      ['add', 'yes'],
    ]);
    assert.equal(more.statusCode, 200);
    assert.match(more.body, /name="rows" value="2"/);
    assert.match(more.body, /value="Campus security"/);
    assert.doesNotMatch(more.body, /Remove this contact/);
    assert.deepEqual((await ctx().admin('GET', api)).json(), { contacts: [] }, 'adding a row saves nothing');

    // The second contact sent is the third row: its error is shown on the third row.
    const bad = await postForm(ctx(), admin, page, [
      ['rows', '3'],
      ['name_0', 'Campus security'],
      ['phone_0', '+44 20 7946 0000'],
      ['hours_0', '24/7'],
      ['name_2', 'Night line'],
      ['url_2', 'javascript:alert(1)'],
    ]);
    assert.equal(bad.statusCode, 400);
    assert.match(
      bad.body,
      /id="contact-2-url-error">Enter a web address starting with https:\/\/ or http:\/\//,
    );
    assert.match(bad.body, /value="Night line"/);
    assert.deepEqual((await ctx().admin('GET', api)).json(), { contacts: [] });

    // Every problem of every row at once, each next to its field, in sentences.
    const many = await postForm(ctx(), admin, page, [
      ['rows', '2'],
      ['phone_0', 'call us'],
      ['name_1', 'N'.repeat(250)],
      ['url_1', 'nightline.example.org'],
    ]);
    assert.equal(many.statusCode, 400);
    assert.match(many.body, /id="contact-0-name-error">Enter a name</);
    assert.match(many.body, /id="contact-0-phone-error">Enter a phone number of digits/);
    assert.match(many.body, /id="contact-1-name-error">Name must be 200 characters or fewer</);
    assert.match(many.body, /id="contact-1-url-error">Enter a web address starting with/);
    assert.match(many.body, new RegExp(`value="${'N'.repeat(250)}"`), 'the value typed is kept, not cut');
    assert.doesNotMatch(many.body, /contacts\[|invalid_field/);
    assert.deepEqual((await ctx().admin('GET', api)).json(), { contacts: [] });

    const saved = await postForm(ctx(), admin, page, [
      ['rows', '3'],
      ['name_0', 'Campus security'],
      ['phone_0', '+44 20 7946 0000'],
      ['hours_0', '24/7'],
      ['name_2', 'Night line'],
      ['url_2', 'https://nightline.example.org'],
      ['description_2', 'Listening service'],
    ]);
    assert.equal(saved.statusCode, 303, saved.body);
    assert.equal(saved.headers.location, `${page}?done=crisis_contacts_saved`);
    const contacts = (await ctx().admin('GET', api)).json().contacts;
    assert.deepEqual(
      contacts.map((c: { name: string; url: string | null }) => [c.name, c.url]),
      [
        ['Campus security', null],
        ['Night line', 'https://nightline.example.org'],
      ],
    );
    const shown = await admin.request('GET', `${page}?done=crisis_contacts_saved`);
    assert.match(shown.body, /The crisis contacts were saved/);
    assert.match(shown.body, /name="rows" value="3"/);
    assert.equal(
      shown.body.match(/Remove this contact/g)?.length,
      2,
      'the two saved rows, not the blank one',
    );
    // A row added to saved ones: the saved rows keep their box through the post-back.
    const added = await postForm(ctx(), admin, page, [
      ['rows', '2'],
      ['name_0', 'Campus security'],
      ['saved_0', 'yes'],
      ['name_1', 'Night line'],
      ['saved_1', 'yes'],
      ['add', 'yes'],
    ]);
    assert.equal(added.body.match(/Remove this contact/g)?.length, 2);
    assert.match(added.body, /name="rows" value="3"/);

    // Ticking "Remove" leaves a contact out.
    const removed = await postForm(ctx(), admin, page, [
      ['rows', '2'],
      ['name_0', 'Campus security'],
      ['phone_0', '+44 20 7946 0000'],
      ['remove_0', 'yes'],
      ['name_1', 'Night line'],
      ['url_1', 'https://nightline.example.org'],
    ]);
    assert.equal(removed.statusCode, 303, removed.body);
    assert.deepEqual(
      (await ctx().admin('GET', api)).json().contacts.map((c: { name: string }) => c.name),
      ['Night line'],
    );
    const forged = await postForm(ctx(), admin, page, [['rows', '0']], false);
    assert.equal(forged.statusCode, 403);
    assert.equal((await ctx().admin('GET', api)).json().contacts.length, 1);
  });

  test('cohorts: list with clock and start date, set a start date, create; bad dates inline', async () => {
    const tenant = await seedTenant(ctx(), { rosterSecret: false });
    const admin = await personBrowser(ctx(), tenant, { roles: ['admin'] });
    const page = `/console/${tenant.slug}/cohorts`;
    const listed = await admin.request('GET', page);
    assert.equal(listed.statusCode, 200, listed.body);
    assert.match(listed.body, new RegExp(`href="${page}/${tenant.cohortId}"`));
    assert.match(listed.body, /not set/);

    const cohortPage = `${page}/${tenant.cohortId}`;
    const one = await admin.request('GET', cohortPage);
    assert.equal(one.statusCode, 200, one.body);
    const name = /id="edit-name" name="name" value="([^"]*)"/.exec(one.body)?.[1] ?? '';
    // Titled by its name alone, which often starts with "Cohort" already.
    assert.match(one.body, new RegExp(`<h1 class="wrap">${name}</h1>`));
    assert.doesNotMatch(one.body, /Cohort Cohort/);
    const bad = await postForm(ctx(), admin, cohortPage, [
      ['name', name],
      ['clock', 'cohort'],
      ['start_date', '2026-02-30'],
    ]);
    assert.equal(bad.statusCode, 400);
    assert.match(bad.body, /id="edit-start-error">Enter the start date as a date that exists, YYYY-MM-DD/);
    assert.match(bad.body, /value="2026-02-30"/);
    const set = await postForm(ctx(), admin, cohortPage, [
      ['name', name],
      ['clock', 'cohort'],
      ['start_date', '2026-09-07'],
    ]);
    assert.equal(set.statusCode, 303, set.body);
    assert.equal(set.headers.location, `${cohortPage}?done=cohort_updated`);
    const api = `/admin/v1/institutions/${tenant.slug}/cohorts/${tenant.cohortId}`;
    assert.equal((await ctx().admin('GET', api)).json().start_date, '2026-09-07');
    assert.match((await admin.request('GET', page)).body, /2026-09-07/);

    const noName = await postForm(ctx(), admin, page, [
      ['name', ''],
      ['clock', 'individual'],
    ]);
    assert.equal(noName.statusCode, 400);
    assert.match(noName.body, /id="create-name-error"/);
    const created = await postForm(ctx(), admin, page, [
      ['name', 'Spring 2027'],
      ['clock', 'cohort'],
      ['start_date', '2027-02-01'],
    ]);
    assert.equal(created.statusCode, 303, created.body);
    const shown = await admin.request('GET', created.headers.location as string);
    assert.match(shown.body, /<h1 class="wrap">Spring 2027<\/h1>/);
    assert.match(shown.body, /The cohort was created/);
    const forged = await postForm(ctx(), admin, cohortPage, [['name', 'x']], false);
    assert.equal(forged.statusCode, 403);

    // The operator sees and creates cohorts of any institution.
    const operator = await operatorBrowser(ctx());
    assert.equal((await operator.request('GET', page)).statusCode, 200);
    const byOperator = await postForm(ctx(), operator, page, [
      ['name', 'Operator cohort'],
      ['clock', 'individual'],
    ]);
    assert.equal(byOperator.statusCode, 303, byOperator.body);
    for (const missing of ['not-an-id', '00000000-0000-4000-8000-000000000000'])
      assert.equal((await admin.request('GET', `${page}/${missing}`)).statusCode, 404, missing);
  });

  test("the institution's time zone is set beside the cohorts; an unknown zone is shown next to the field", async () => {
    const tenant = await seedTenant(ctx(), { rosterSecret: false });
    const admin = await personBrowser(ctx(), tenant, { roles: ['admin'] });
    const zonePath = `/console/${tenant.slug}/time-zone`;
    const listed = await admin.request('GET', `/console/${tenant.slug}/cohorts`);
    assert.match(listed.body, /id="time-zone" name="time_zone" list="time-zones" value="UTC"/);
    assert.match(listed.body, /<option value="Australia\/Sydney">/);

    const bad = await postForm(ctx(), admin, zonePath, [['time_zone', 'Mars/Olympus']]);
    assert.equal(bad.statusCode, 400);
    assert.match(
      bad.body,
      /id="time-zone-error">Enter a time zone from the list, such as Australia\/Sydney or UTC</,
    );
    assert.match(bad.body, /value="Mars\/Olympus"/);
    const institution = `/admin/v1/institutions/${tenant.slug}`;
    assert.equal((await ctx().admin('GET', institution)).json().time_zone, 'UTC');

    const set = await postForm(ctx(), admin, zonePath, [['time_zone', 'australia/sydney']]);
    assert.equal(set.statusCode, 303, set.body);
    assert.equal(set.headers.location, `/console/${tenant.slug}/cohorts?done=time_zone_saved`);
    assert.equal((await ctx().admin('GET', institution)).json().time_zone, 'Australia/Sydney');
    assert.match((await admin.request('GET', set.headers.location)).body, /value="Australia\/Sydney"/);

    const staff = await personBrowser(ctx(), tenant, { roles: ['staff'] });
    assert.equal((await postForm(ctx(), staff, zonePath, [['time_zone', 'UTC']])).statusCode, 403);
    assert.equal((await postForm(ctx(), admin, zonePath, [['time_zone', 'UTC']], false)).statusCode, 403);
    assert.equal((await ctx().admin('GET', institution)).json().time_zone, 'Australia/Sydney');
  });

  test('staff are refused these pages and see no link; another institution is not found', async () => {
    const mine = await seedTenant(ctx(), { rosterSecret: false });
    const theirs = await seedTenant(ctx(), { rosterSecret: false });
    const staff = await personBrowser(ctx(), mine, { roles: ['staff'] });
    const inbox = await staff.request('GET', `/console/${mine.slug}/inbox`);
    assert.equal(inbox.statusCode, 200);
    for (const label of ['Calendar feeds', 'Crisis contacts', 'Cohorts'])
      assert.ok(!inbox.body.includes(`>${label}</a>`), label);
    for (const path of ['calendar-feeds', 'crisis-contacts', 'cohorts', `cohorts/${mine.cohortId}`]) {
      const refused = await staff.request('GET', `/console/${mine.slug}/${path}`);
      assert.equal(refused.statusCode, 403, path);
      assert.match(refused.body, /<code>forbidden<\/code>/);
    }
    const post = await postForm(ctx(), staff, `/console/${mine.slug}/crisis-contacts`, [
      ['rows', '1'],
      ['name_0', 'Nope'],
      ['phone_0', '123 456'],
    ]);
    assert.equal(post.statusCode, 403);
    const createFeed = await postForm(ctx(), staff, `/console/${mine.slug}/calendar-feeds`, [
      ['url', 'https://cal.public.example/x.ics'],
    ]);
    assert.equal(createFeed.statusCode, 403);

    const admin = await personBrowser(ctx(), mine, { roles: ['admin'] });
    const home = await admin.request('GET', `/console/${mine.slug}/`);
    for (const label of ['Calendar feeds', 'Crisis contacts', 'Cohorts'])
      assert.ok(home.body.includes(`>${label}</a>`), label);
    for (const path of ['calendar-feeds', 'crisis-contacts', 'cohorts', `cohorts/${theirs.cohortId}`]) {
      const response = await admin.request('GET', `/console/${theirs.slug}/${path}`);
      assert.equal(response.statusCode, 404, path);
    }
    // Their cohort through my institution's URL is not found either.
    assert.equal(
      (await admin.request('GET', `/console/${mine.slug}/cohorts/${theirs.cohortId}`)).statusCode,
      404,
    );
  });
});
