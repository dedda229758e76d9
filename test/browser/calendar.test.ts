// An admin's calendar, crisis-contact and cohort pages in a real browser: a feed served by a real
// local HTTP server (the harness allows loopback outbound) is added, fetched now and its events
// seen; a private address is refused next to the URL field; a failing feed needs attention on the
// health page and links to its page; deleting asks first. Crisis contacts are edited as rows (a row
// added without scripts, an error next to its field), and a cohort's start date is set. Staff see
// none of it. axe-core runs on every page and each is photographed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ics } from '../calendar/calendars.ts';
import { sharedFeedServer } from '../calendar/helpers.ts';
import { seedTenant } from '../helpers/app.ts';
import { browserSuite } from './harness.ts';

const server = sharedFeedServer();

/** iCalendar UTC time `days` from `now`, at 09:00. */
function icsTime(now: Date, days: number, hour = 9): string {
  const d = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + days, hour));
  return d
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
}

function termCalendar(now: Date) {
  return ics([
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//Test//Console browser//EN',
    'BEGIN:VEVENT',
    'UID:welcome@example.edu',
    `DTSTART:${icsTime(now, 2)}`,
    `DTEND:${icsTime(now, 2, 10)}`,
    'SUMMARY:Welcome lecture',
    'LOCATION:Main hall',
    'END:VEVENT',
    'BEGIN:VEVENT',
    'UID:tutorial@example.edu',
    `DTSTART:${icsTime(now, 3, 14)}`,
    `DTEND:${icsTime(now, 3, 15)}`,
    'RRULE:FREQ=WEEKLY;COUNT=4',
    'SUMMARY:Study skills tutorial',
    'LOCATION:Room 2.14',
    'END:VEVENT',
    // A rule no date can satisfy (30 February): kept at its start, reported on the feed's page.
    'BEGIN:VEVENT',
    'UID:open-evening@example.edu',
    `DTSTART:${icsTime(now, 4, 18)}`,
    `DTEND:${icsTime(now, 4, 20)}`,
    'RRULE:FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30',
    'SUMMARY:Open evening',
    'END:VEVENT',
    'END:VCALENDAR',
  ]);
}

browserSuite('console: calendar feeds, crisis contacts, cohorts', (h) => {
  test('an admin adds and fetches a feed, sees a failing one on the health page, edits crisis contacts and a cohort', async () => {
    const { ctx } = h();
    const tenant = await seedTenant(ctx);
    await ctx.db.query(
      `INSERT INTO audience_tags (institution_id, kind, source_id, label)
       VALUES ($1, 'program', gen_random_uuid(), 'Nursing'), ($1, 'campus', gen_random_uuid(), 'City campus')`,
      [tenant.institutionId],
    );
    server.routes.set('/browser-term.ics', {
      body: termCalendar(ctx.deps.clock.now()),
      headers: { etag: '"t1"' },
    });
    server.routes.set('/browser-broken.ics', { status: 503, body: 'maintenance' });
    const admin = await h().person(tenant, { roles: ['admin'], name: 'Cal Admin' });
    await h().withPage(admin, async (page) => {
      await page.goto(`/console/${tenant.slug}/`);
      await page.getByRole('navigation').getByRole('link', { name: 'Calendar feeds' }).click();
      await page.locator('h1', { hasText: 'Calendar feeds' }).waitFor();
      await h().check(page, 'calendar-feeds-empty');

      // The URL guard refuses a private address: its message next to the URL field, values kept.
      await page.getByLabel('Calendar address (.ics)').fill('https://192.168.1.20/term.ics');
      await page.getByLabel('Name (optional)').fill('Term dates');
      await page.getByRole('button', { name: 'Add the feed' }).click();
      const urlError = page.locator('#add-url-error');
      await urlError.waitFor();
      assert.match((await urlError.textContent()) ?? '', /is a private network address/);
      assert.equal(await page.getByLabel('Name (optional)').inputValue(), 'Term dates');
      await h().check(page, 'calendar-feeds-refused');

      await page.getByLabel('Calendar address (.ics)').fill(server.url('/browser-term.ics'));
      await page.getByLabel('Minutes between fetches').fill('120');
      await page.getByLabel('Nursing').check();
      await page.getByRole('button', { name: 'Add the feed' }).click();
      await page.getByText('The calendar feed was added').waitFor();
      await page.locator('h1', { hasText: 'Calendar feed Term dates' }).waitFor();
      await h().check(page, 'calendar-feed-added');

      await page.getByRole('button', { name: 'Fetch now' }).click();
      await page.getByRole('heading', { name: 'Fetched: ok' }).waitFor();
      const result = page.locator('section', { hasText: 'Fetched: ok' });
      assert.match((await result.textContent()) ?? '', /6 added, 0 updated, 0 removed; 6 stored/);
      const problems = page.locator('section', { hasText: 'Events with problems' });
      assert.match(
        (await problems.textContent()) ?? '',
        /Open evening \(UID open-evening@example\.edu\): its recurrence rule can never match a date/,
      );
      const upcoming = page.locator('section', { hasText: 'Upcoming events' });
      await upcoming.getByText('Welcome lecture').waitFor();
      await upcoming.getByText('Open evening').waitFor();
      assert.equal(await upcoming.getByText('Study skills tutorial').count(), 4);
      await h().check(page, 'calendar-feed-fetched');

      await page.getByLabel('Name (optional)').fill('Autumn term');
      await page.getByRole('button', { name: 'Save the settings' }).click();
      await page.getByText('The calendar feed was saved').waitFor();
      await page.locator('h1', { hasText: 'Calendar feed Autumn term' }).waitFor();

      // A feed whose server fails: the fetch record says why.
      await page.getByRole('link', { name: 'All calendar feeds' }).click();
      await page.getByLabel('Calendar address (.ics)').fill(server.url('/browser-broken.ics'));
      await page.getByLabel('Name (optional)').fill('Sports fixtures');
      await page.getByRole('button', { name: 'Add the feed' }).click();
      await page.getByRole('button', { name: 'Fetch now' }).click();
      await page.getByRole('heading', { name: 'Fetched: failed' }).waitFor();
      assert.match(
        (await page.locator('section', { hasText: 'Fetched: failed' }).textContent()) ?? '',
        /503/,
      );
      await h().check(page, 'calendar-feed-failed');

      await page.getByRole('link', { name: 'All calendar feeds' }).click();
      const table = page.locator('table', { hasText: 'Autumn term' });
      assert.match((await table.textContent()) ?? '', /Nursing \(program\)/);
      assert.match((await table.textContent()) ?? '', /failing since/);
      await h().check(page, 'calendar-feeds');

      // The health page: the failing feed needs attention and links to its page.
      await page.getByRole('navigation').getByRole('link', { name: 'Integration health' }).click();
      const attention = page.locator('section', { hasText: 'Needs attention' });
      await attention.getByRole('link', { name: /Calendar feed Sports fixtures: failing since/ }).waitFor();
      await h().check(page, 'calendar-health');
      await attention.getByRole('link', { name: /Calendar feed Sports fixtures/ }).click();
      await page.locator('h1', { hasText: 'Calendar feed Sports fixtures' }).waitFor();

      // Deleting asks first.
      await page.getByRole('button', { name: 'Delete…' }).click();
      await page.locator('h1', { hasText: 'Delete this calendar feed?' }).waitFor();
      await h().check(page, 'calendar-feed-delete-confirm');
      await page.getByRole('button', { name: 'Delete the calendar feed' }).click();
      await page.getByText('The calendar feed was deleted').waitFor();
      assert.equal(await page.getByRole('link', { name: 'Sports fixtures' }).count(), 0);

      // Crisis contacts: one row, "Add a row" (no script needed), an error next to its field.
      await page.getByRole('navigation').getByRole('link', { name: 'Crisis contacts' }).click();
      await page.locator('h1', { hasText: 'Crisis contacts' }).waitFor();
      await h().check(page, 'crisis-contacts-empty');
      await page.locator('#contact-0-name').fill('Campus security');
      await page.locator('#contact-0-phone').fill('+44 20 7946 0000');
      await page.locator('#contact-0-hours').fill('24/7');
      await page.getByRole('button', { name: 'Add a row' }).click();
      await page.locator('#contact-1-name').waitFor();
      assert.equal(await page.locator('#contact-0-name').inputValue(), 'Campus security');
      await page.locator('#contact-1-name').fill('Night line');
      await page.locator('#contact-1-url').fill('nightline.example.org');
      await page.getByRole('button', { name: 'Save the crisis contacts' }).click();
      await page.locator('#contact-1-url-error').waitFor();
      await h().check(page, 'crisis-contacts-error');
      await page.locator('#contact-1-url').fill('https://nightline.example.org');
      await page.locator('#contact-1-description').fill('A listening service run by students, every night');
      await page.getByRole('button', { name: 'Save the crisis contacts' }).click();
      await page.getByText('The crisis contacts were saved').waitFor();
      await h().check(page, 'crisis-contacts');
      const contacts = await ctx.admin('GET', `/admin/v1/institutions/${tenant.slug}/crisis-contacts`);
      assert.deepEqual(
        contacts.json().contacts.map((c: { name: string }) => c.name),
        ['Campus security', 'Night line'],
      );

      // Cohorts: the list, a cohort's page, its start date set.
      await page.getByRole('navigation').getByRole('link', { name: 'Cohorts' }).click();
      await page.locator('h1', { hasText: 'Cohorts' }).waitFor();
      await h().check(page, 'cohorts');
      await page.locator('table a').first().click();
      await page.locator('h1', { hasText: 'Cohort ' }).waitFor();
      await page.getByLabel('Start date', { exact: true }).fill('2026-09-07');
      await page.getByRole('button', { name: 'Save the cohort' }).click();
      await page.getByText('The cohort was saved').waitFor();
      await h().check(page, 'cohort');
      const cohort = await ctx.admin(
        'GET',
        `/admin/v1/institutions/${tenant.slug}/cohorts/${tenant.cohortId}`,
      );
      assert.equal(cohort.json().start_date, '2026-09-07');
    });
  });

  test('staff see no calendar, crisis-contact or cohort links and are refused the pages', async () => {
    const { ctx } = h();
    const tenant = await seedTenant(ctx);
    const staff = await h().person(tenant, { roles: ['staff'], name: 'Sam Staff' });
    await h().withPage(
      staff,
      async (page) => {
        await page.goto(`/console/${tenant.slug}/inbox`);
        const nav = page.getByRole('navigation');
        for (const name of ['Calendar feeds', 'Crisis contacts', 'Cohorts'])
          assert.equal(await nav.getByRole('link', { name }).count(), 0, name);
        const response = await page.goto(`/console/${tenant.slug}/calendar-feeds`);
        assert.equal(response?.status(), 403);
      },
      'calendar-feeds-staff-refused',
    );
  });
});
