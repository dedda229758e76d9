// The student pages (/app/) through HTTP with real student sessions, on PGlite and PostgreSQL:
// the six weeks on both clocks, the events of the window and their audience, raising a normal
// and a crisis request (events recorded, crisis contacts shown), own requests only, staff notes
// hidden, CSRF, and who is sent elsewhere. The clock is fixed at 2026-09-01T06:00Z.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ownRequest } from '../../src/domain/students/own-requests.ts';
import { ics } from '../calendar/calendars.ts';
import { describeCalendar, sharedFeedServer } from '../calendar/helpers.ts';
import { type SeededTenant, seedTenant, type TestContext } from '../helpers/app.ts';
import { invitePerson, operatorBrowser, personBrowser } from '../helpers/people.ts';
import {
  pushTaxonomy,
  type StudentPages,
  setCohortStart,
  setCrisisContacts,
  signedInStudent,
  textOf,
} from './helpers.ts';

const server = sharedFeedServer();

const everyoneCalendar = ics([
  'BEGIN:VCALENDAR',
  'VERSION:2.0',
  'PRODID:-//Test//Student app//EN',
  'BEGIN:VEVENT',
  'UID:bbq@test',
  'DTSTAMP:20260801T000000Z',
  'DTSTART:20260819T100000Z',
  'DTEND:20260819T120000Z',
  'SUMMARY:Welcome barbecue',
  'LOCATION:Main lawn',
  'END:VEVENT',
  'BEGIN:VEVENT',
  'UID:tour@test',
  'DTSTAMP:20260801T000000Z',
  'DTSTART:20260820T090000Z',
  'DTEND:20260820T100000Z',
  'RRULE:FREQ=WEEKLY;COUNT=10',
  'SUMMARY:Library tour',
  'END:VEVENT',
  'BEGIN:VEVENT',
  'UID:fair@test',
  'DTSTAMP:20260801T000000Z',
  'DTSTART;VALUE=DATE:20260901',
  'DTEND;VALUE=DATE:20260903',
  'SUMMARY:Clubs fair',
  'END:VEVENT',
  'BEGIN:VEVENT',
  'UID:cancelled@test',
  'DTSTAMP:20260801T000000Z',
  'DTSTART:20260826T150000Z',
  'DTEND:20260826T160000Z',
  'STATUS:CANCELLED',
  'SUMMARY:Quiz night',
  'END:VEVENT',
  'BEGIN:VEVENT',
  'UID:later@test',
  'DTSTAMP:20260801T000000Z',
  'DTSTART:20261201T090000Z',
  'DTEND:20261201T100000Z',
  'SUMMARY:December exams briefing',
  'END:VEVENT',
  'END:VCALENDAR',
]);

const nursingCalendar = ics([
  'BEGIN:VCALENDAR',
  'VERSION:2.0',
  'PRODID:-//Test//Nursing//EN',
  'BEGIN:VEVENT',
  'UID:lab@test',
  'DTSTAMP:20260801T000000Z',
  'DTSTART:20260825T130000Z',
  'DTEND:20260825T150000Z',
  'SUMMARY:Nursing lab induction',
  'END:VEVENT',
  'END:VCALENDAR',
]);

let paths = 0;

async function addFetchedFeed(ctx: TestContext, slug: string, body: Buffer, extra: object = {}) {
  const path = `/student-app-${++paths}.ics`;
  server.routes.set(path, { body });
  const created = await ctx.admin('POST', `/admin/v1/institutions/${slug}/calendar-feeds`, {
    url: server.url(path),
    ...extra,
  });
  assert.equal(created.statusCode, 201, created.body);
  const fetched = await ctx.admin(
    'POST',
    `/admin/v1/institutions/${slug}/calendar-feeds/${created.json().id}/fetch`,
  );
  assert.equal(fetched.json().status, 'ok', fetched.body);
}

async function raise(student: StudentPages, fields: Record<string, string>) {
  const res = await student.post('/app/requests', fields);
  assert.equal(res.statusCode, 303, res.body);
  const location = String(res.headers.location);
  assert.match(location, /^\/app\/requests\/[0-9a-f-]{36}\?raised=1$/);
  return { id: location.slice('/app/requests/'.length, -'?raised=1'.length), location };
}

async function eventTypes(ctx: TestContext, tenant: SeededTenant, helpRequestId: string) {
  const res = await ctx.admin('GET', `/admin/v1/institutions/${tenant.slug}/events`);
  return res
    .json()
    .items.filter((e: { help_request_id: string }) => e.help_request_id === helpRequestId)
    .map((e: { type: string }) => e.type);
}

describeCalendar('student pages', (ctx) => {
  test('cohort clock: week 3 of 6 from the cohort start date; before, after and unset say so', async () => {
    const tenant = await seedTenant(ctx());
    const student = await signedInStudent(ctx(), tenant, { first_name: 'Ana' });
    const home = async () => {
      const res = await student.get('/app/');
      assert.equal(res.statusCode, 200, res.body);
      assert.match(String(res.headers['cache-control']), /no-store/);
      return textOf(res.body);
    };
    assert.match(await home(), /Your start date is not set yet/);
    await setCohortStart(ctx(), tenant, '2026-08-18');
    const during = await home();
    assert.match(during, /Hello, Ana/);
    assert.match(during, /Week 3 of 6/);
    assert.match(during, /day 15 of 42/);
    await setCohortStart(ctx(), tenant, '2026-09-04');
    assert.match(await home(), /Your six weeks start in 3 days/);
    await setCohortStart(ctx(), tenant, '2026-07-01');
    assert.match(await home(), /Your first six weeks are over/);
    // The individual start date of a student does not count on the cohort clock.
    const own = await signedInStudent(ctx(), tenant, { start_date: '2026-08-31' });
    assert.match(textOf((await own.get('/app/')).body), /Your first six weeks are over/);
  });

  test("days are the institution's: its time zone decides today, the weeks and the times printed", async () => {
    const tenant = await seedTenant(ctx());
    await addFetchedFeed(ctx(), tenant.slug, everyoneCalendar, { name: 'Campus life' });
    await setCohortStart(ctx(), tenant, '2026-09-01');
    const student = await signedInStudent(ctx(), tenant);
    // 06:00 UTC on 1 September: the first day in UTC...
    const utc = textOf((await student.get('/app/')).body);
    assert.match(utc, /Week 1 of 6/);
    assert.match(utc, /Clubs fair/);
    // ...and 23:00 on 31 August in Los Angeles, where the six weeks start tomorrow.
    const set = await ctx().admin('PATCH', `/admin/v1/institutions/${tenant.slug}`, {
      time_zone: 'america/los_angeles',
    });
    assert.equal(set.statusCode, 200, set.body);
    assert.equal(set.json().time_zone, 'America/Los_Angeles');
    const la = textOf((await student.get('/app/')).body);
    assert.match(la, /Your six weeks start in 1 day/);
    // A weekly tour at 09:00 UTC is 02:00 in Los Angeles, written with the zone's name.
    assert.match(la, /Thu, 3 Sept 2026, 02:00–03:00 GMT-7/);
    assert.match(la, /Clubs fair Tue, 1 Sept 2026 to Wed, 2 Sept 2026/, 'all-day events keep their dates');
    // An unknown zone is refused and changes nothing.
    const bad = await ctx().admin('PATCH', `/admin/v1/institutions/${tenant.slug}`, {
      time_zone: 'Mars/Olympus',
    });
    assert.equal(bad.statusCode, 400);
    assert.deepEqual([bad.json().error, bad.json().field], ['invalid_field', 'time_zone']);
    const read = await ctx().admin('GET', `/admin/v1/institutions/${tenant.slug}`);
    assert.equal(read.json().time_zone, 'America/Los_Angeles');
  });

  test("individual clock: the student's own start date counts; the cohort's does not", async () => {
    const tenant = await seedTenant(ctx(), { clock: 'individual' });
    await setCohortStart(ctx(), tenant, '2026-06-01');
    const early = await signedInStudent(ctx(), tenant, { start_date: '2026-08-31' });
    assert.match(textOf((await early.get('/app/')).body), /Week 1 of 6/);
    const later = await signedInStudent(ctx(), tenant, { start_date: '2026-08-25' });
    assert.match(textOf((await later.get('/app/')).body), /Week 2 of 6/);
    const none = await signedInStudent(ctx(), tenant);
    assert.match(textOf((await none.get('/app/')).body), /Your start date is not set yet/);
  });

  test('events of the six weeks, grouped by week; a feed with audience tags only for matching students', async () => {
    const tenant = await seedTenant(ctx());
    await pushTaxonomy(ctx(), tenant, {
      programs: [{ program_code: 'NURS', name: 'Nursing' }, { program_code: 'HIST' }],
      campuses: [{ name: 'City' }],
    });
    const tags = (await ctx().admin('GET', `/admin/v1/institutions/${tenant.slug}/audience-tags`)).json()
      .items as { id: string; kind: string; label: string }[];
    const nursing = tags.find((t) => t.kind === 'program' && /nurs/i.test(t.label));
    assert.ok(nursing, JSON.stringify(tags));
    await addFetchedFeed(ctx(), tenant.slug, everyoneCalendar, { name: 'Campus life' });
    await addFetchedFeed(ctx(), tenant.slug, nursingCalendar, { audience_tags: [nursing.id] });
    await setCohortStart(ctx(), tenant, '2026-08-18');

    const nurse = await signedInStudent(ctx(), tenant, { program_code: 'NURS' });
    const historian = await signedInStudent(ctx(), tenant, { program_code: 'HIST', campus_name: 'City' });
    const nurseHome = textOf((await nurse.get('/app/')).body);
    const historianHome = textOf((await historian.get('/app/')).body);

    for (const page of [nurseHome, historianHome]) {
      assert.match(page, /Welcome barbecue/);
      assert.match(page, /Main lawn/);
      assert.match(page, /Clubs fair/);
      assert.match(page, /Quiz night cancelled/);
      // Six weekly tours fall in the window (20 Aug to 24 Sep); the seventh (1 Oct) does not.
      assert.equal(page.match(/Library tour/g)?.length, 6);
      assert.doesNotMatch(page, /December exams briefing/);
      assert.match(page, /Week 3 this week/);
    }
    assert.match(nurseHome, /Nursing lab induction/);
    assert.doesNotMatch(historianHome, /Nursing lab induction/);

    // The order of weeks: the barbecue in week 1, the lab in week 2, the fair in week 3.
    const events = nurseHome.slice(nurseHome.indexOf('What is on in your six weeks'));
    const at = (text: string) => events.indexOf(text);
    assert.ok(at('Week 1') < at('Welcome barbecue') && at('Welcome barbecue') < at('Week 2'));
    assert.ok(at('Week 2') < at('Nursing lab induction') && at('Nursing lab induction') < at('Week 3'));
    assert.ok(at('Week 3') < at('Clubs fair') && at('Clubs fair') < at('Week 4'));

    // After the six weeks no events are listed.
    await setCohortStart(ctx(), tenant, '2026-06-01');
    assert.doesNotMatch(textOf((await nurse.get('/app/')).body), /Library tour/);
  });

  test('a campus tag matches too; an institution sees only its own feeds', async () => {
    const tenant = await seedTenant(ctx());
    const other = await seedTenant(ctx());
    await pushTaxonomy(ctx(), tenant, { campuses: [{ name: 'City' }, { name: 'Harbour' }] });
    const tags = (await ctx().admin('GET', `/admin/v1/institutions/${tenant.slug}/audience-tags`)).json()
      .items as { id: string; kind: string; label: string }[];
    const city = tags.find((t) => t.kind === 'campus' && t.label === 'City');
    assert.ok(city);
    await addFetchedFeed(ctx(), tenant.slug, nursingCalendar, { audience_tags: [city.id] });
    await addFetchedFeed(ctx(), other.slug, everyoneCalendar);
    await setCohortStart(ctx(), tenant, '2026-08-18');
    const inCity = await signedInStudent(ctx(), tenant, { campus_name: 'City' });
    const inHarbour = await signedInStudent(ctx(), tenant, { campus_name: 'Harbour' });
    const cityHome = textOf((await inCity.get('/app/')).body);
    assert.match(cityHome, /Nursing lab induction/);
    assert.doesNotMatch(cityHome, /Welcome barbecue/);
    assert.doesNotMatch(textOf((await inHarbour.get('/app/')).body), /Nursing lab induction/);
  });

  test('raise a normal request: help_request.created only, category kept, listed with its status', async () => {
    const tenant = await seedTenant(ctx());
    const student = await signedInStudent(ctx(), tenant);
    const form = await student.get('/app/requests/new');
    assert.equal(form.statusCode, 200);
    assert.match(form.body, /name="_csrf" value="[^"]+"/);
    assert.match(form.body, /<label for="description">/);

    const { id, location } = await raise(student, {
      description: 'I cannot find my timetable',
      category: 'academic',
    });
    assert.deepEqual(await eventTypes(ctx(), tenant, id), ['help_request.created']);
    const stored = (
      await ctx().admin('GET', `/admin/v1/institutions/${tenant.slug}/help-requests/${id}`)
    ).json();
    assert.deepEqual(
      [stored.priority, stored.category, stored.summary, stored.student_id],
      ['normal', 'academic', 'I cannot find my timetable', student.studentId],
    );
    const page = textOf((await student.get(location)).body);
    assert.match(page, /Your request was sent/);
    assert.match(page, /Studies and assessments/);
    assert.match(page, /I cannot find my timetable/);
    assert.doesNotMatch(page, /Who you can reach right now/);
    const list = textOf((await student.get('/app/requests')).body);
    assert.match(list, /Studies and assessments/);
    assert.match(list, /Sent since/);
    assert.match(list, /Open/);
  });

  test('the crisis path: priority crisis, help_request.crisis recorded, contacts on the form and the confirmation', async () => {
    const tenant = await seedTenant(ctx());
    await setCrisisContacts(ctx(), tenant);
    const student = await signedInStudent(ctx(), tenant);
    const form = await student.get('/app/crisis');
    assert.equal(form.statusCode, 200);
    const formText = textOf(form.body);
    assert.match(formText, /Who you can reach right now/);
    assert.match(formText, /Call \+44 20 7946 0000/);
    assert.match(form.body, /href="tel:\+442079460000"/);
    assert.match(formText, /Night line/);
    assert.match(formText, /Listening service run by students/);
    assert.ok(formText.indexOf('Who you can reach') < formText.indexOf('What is happening?'));

    // The category may be left out on the crisis path.
    const { id, location } = await raise(student, { description: 'I am not safe tonight', crisis: '1' });
    assert.deepEqual(await eventTypes(ctx(), tenant, id), ['help_request.created', 'help_request.crisis']);
    const stored = (
      await ctx().admin('GET', `/admin/v1/institutions/${tenant.slug}/help-requests/${id}`)
    ).json();
    // Without a category it has none: it is not "about something else" (issue 28, item 6).
    assert.deepEqual([stored.priority, stored.category], ['crisis', null]);
    const confirmation = textOf((await student.get(location)).body);
    assert.doesNotMatch(confirmation, /Something else|About/);
    assert.match(confirmation, /Urgent help/);
    assert.match(confirmation, /Your urgent request was sent/);
    assert.match(confirmation, /Campus security/);
    assert.match(confirmation, /Call \+44 20 7946 0000/);
    assert.match(confirmation, /https:\/\/nightline\.example\.org/);

    // No contacts configured: the crisis path still says what to do.
    const bare = await seedTenant(ctx());
    const alone = await signedInStudent(ctx(), bare);
    const bareText = textOf((await alone.get('/app/crisis')).body);
    assert.match(bareText, /call your local emergency number/);
    assert.match(bareText, /has not listed its crisis contacts/);
  });

  test('an incomplete form is shown again with its problems (400), nothing created', async () => {
    const tenant = await seedTenant(ctx());
    const student = await signedInStudent(ctx(), tenant);
    const res = await student.post('/app/requests', { description: '   ', category: 'nonsense' });
    assert.equal(res.statusCode, 400);
    const text = textOf(res.body);
    assert.match(text, /Tell us briefly what you need help with/);
    assert.match(text, /Choose what your request is about/);
    assert.match(res.body, /aria-invalid="true"/);
    assert.match(res.body, /href="\/app\/requests\/new" aria-current="page"/);
    const long = await student.post('/app/requests', { description: 'x'.repeat(2001), category: 'other' });
    assert.equal(long.statusCode, 400);
    assert.match(textOf(long.body), /under 2000 characters/);
    assert.equal(
      textOf((await student.get('/app/requests')).body).includes('You have not asked for help yet'),
      true,
    );
  });

  test("own requests only: another student's request is 404 and is not listed; the rule holds in the domain", async () => {
    const tenant = await seedTenant(ctx());
    const otherTenant = await seedTenant(ctx());
    const ana = await signedInStudent(ctx(), tenant);
    const ben = await signedInStudent(ctx(), tenant);
    const cleo = await signedInStudent(ctx(), otherTenant);
    const { id } = await raise(ana, {
      description: 'Rent is due and my loan is late',
      category: 'financial',
    });
    for (const stranger of [ben, cleo]) {
      const res = await stranger.get(`/app/requests/${id}`);
      assert.equal(res.statusCode, 404);
      assert.match(res.body, /help_request_not_found/);
      assert.doesNotMatch(res.body, /Rent is due/);
      assert.doesNotMatch(textOf((await stranger.get('/app/requests')).body), /Money and fees/);
    }
    assert.equal((await ben.get('/app/requests/not-a-uuid')).statusCode, 404);
    assert.equal((await ben.get('/app/requests/00000000-0000-0000-0000-000000000000')).statusCode, 404);
    assert.equal((await ana.get(`/app/requests/${id.toUpperCase()}`)).statusCode, 200);

    await assert.rejects(
      ownRequest(ctx().db, { institutionId: tenant.institutionId, studentId: ben.studentId }, id),
      { code: 'help_request_not_found' },
    );
    await assert.rejects(
      ownRequest(ctx().db, { institutionId: otherTenant.institutionId, studentId: ana.studentId }, id),
      { code: 'help_request_not_found' },
    );
    const own = await ownRequest(
      ctx().db,
      { institutionId: tenant.institutionId, studentId: ana.studentId },
      id,
    );
    assert.equal(own.id, id);
  });

  test('a staff change arrives in the public history; staff notes, names and assignment never show', async () => {
    const tenant = await seedTenant(ctx());
    const student = await signedInStudent(ctx(), tenant);
    const { id } = await raise(student, {
      description: 'Noisy flat, cannot sleep',
      category: 'accommodation',
    });
    const base = `/admin/v1/institutions/${tenant.slug}/help-requests/${id}`;
    const olu = await invitePerson(ctx(), tenant, { roles: ['staff'], name: 'Olu Assignee' });
    for (const [method, path, body] of [
      ['POST', '/notes', { note: 'STAFF-ONLY: talked to the landlord', staff: 'Priya Staffmember' }],
      ['PUT', '/assignment', { assignee_id: olu.id, staff: 'Priya Staffmember' }],
      ['POST', '/status', { status: 'in_progress', staff: 'Priya Staffmember' }],
    ] as const) {
      const res = await ctx().admin(method, `${base}${path}`, body);
      assert.equal(res.statusCode, 200, res.body);
    }
    const page = await student.get(`/app/requests/${id}`);
    const text = textOf(page.body);
    assert.match(text, /Being worked on/);
    assert.match(text, /Request sent/);
    assert.match(text, /Sent → Being worked on/);
    assert.match(text, /Resolved Not yet/);
    for (const secret of ['STAFF-ONLY', 'landlord', 'Priya', 'Olu Assignee'])
      assert.ok(!page.body.includes(secret), secret);

    await ctx().admin('POST', `${base}/status`, { status: 'resolved', staff: 'Priya Staffmember' });
    const resolved = textOf((await student.get(`/app/requests/${id}`)).body);
    assert.match(resolved, /Being worked on → Resolved/);
    assert.match(resolved, /Resolved Yes/);
    assert.match(textOf((await student.get('/app/requests')).body), /Resolved since/);
  });

  test('CSRF: a form post without the token (or with a wrong one) is refused and creates nothing', async () => {
    const tenant = await seedTenant(ctx());
    const student = await signedInStudent(ctx(), tenant);
    const missing = await student.post(
      '/app/requests',
      { description: 'help', category: 'other' },
      { csrf: false },
    );
    assert.equal(missing.statusCode, 403);
    assert.match(missing.body, /csrf_invalid/);
    const wrong = await student.post(
      '/app/requests',
      { description: 'help', category: 'other', _csrf: 'forged' },
      { csrf: false },
    );
    assert.equal(wrong.statusCode, 403);
    const list = await ctx().admin(
      'GET',
      `/admin/v1/institutions/${tenant.slug}/help-requests?student_id=${student.studentId}`,
    );
    assert.deepEqual(list.json().items, []);
  });

  test('not signed in: sent to sign-in and back; staff, admins and the operator are sent to the console', async () => {
    for (const url of ['/app/', '/app/requests', '/app/requests/new?x=1']) {
      const res = await ctx().app.inject({ method: 'GET', url });
      assert.equal(res.statusCode, 303);
      assert.equal(res.headers.location, `/auth/sign-in?return_to=${encodeURIComponent(url)}`);
    }
    const post = await ctx().app.inject({
      method: 'POST',
      url: '/app/requests',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'description=x&category=other',
    });
    assert.equal(post.statusCode, 303);
    const tenant = await seedTenant(ctx());
    for (const browser of [
      await personBrowser(ctx(), tenant, { roles: ['staff'] }),
      await personBrowser(ctx(), tenant, { roles: ['admin'] }),
      await operatorBrowser(ctx()),
    ]) {
      const res = await ctx().app.inject({
        method: 'GET',
        url: '/app/requests',
        headers: { cookie: browser.cookie },
      });
      assert.equal(res.statusCode, 303);
      assert.equal(res.headers.location, '/console/');
    }
    // A student's session is no key to the staff side of the admin API either.
    const student = await signedInStudent(ctx(), tenant);
    const res = await ctx().app.inject({
      method: 'GET',
      url: `/admin/v1/institutions/${tenant.slug}/help-requests`,
      headers: { cookie: student.cookie },
    });
    assert.equal(res.statusCode, 403);
  });

  test('pages carry the strict CSP and the student stylesheet; an unknown page is a 404 page', async () => {
    const tenant = await seedTenant(ctx());
    const student = await signedInStudent(ctx(), tenant);
    const home = await student.get('/app/');
    assert.match(String(home.headers['content-security-policy']), /script-src 'self'/);
    assert.match(home.body, /href="\/assets\/student\.css"/);
    assert.doesNotMatch(home.body, /style=|<script>/);
    const css = await ctx().app.inject({ method: 'GET', url: '/assets/student.css' });
    assert.equal(css.statusCode, 200);
    assert.match(css.body, /@media/);
    const missing = await student.get('/app/nowhere');
    assert.equal(missing.statusCode, 404);
    assert.match(missing.body, /There is no page at this address/);
  });
});
