// The student pages in a real browser at a phone's size (390x844): a roster student signs in
// through the real test identity provider (the browser follows every redirect), sees their six
// weeks and the events of a calendar feed, raises a normal and a crisis request (the crisis
// contacts shown at once), and sees a staff change made through the admin API arrive.
// axe-core checks every page; screenshots go to test-artifacts/screenshots/. Skipped, and said
// so, without Chromium's headless shell or Chromium (chromium.ts; `apt-get install -y
// chromium-headless-shell`).
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { AxeBuilder } from '@axe-core/playwright';
import type { Browser, Page } from 'playwright-core';
import { ics } from '../calendar/calendars.ts';
import { type FeedServer, startFeedServer } from '../calendar/helpers.ts';
import { type SeededTenant, seedTenant, startTestApp, type TestContext } from '../helpers/app.ts';
import { freePort } from '../helpers/free-port.ts';
import { type DevIdp, startTestIdp, TEST_CLIENT } from '../helpers/idp.ts';
import { pushRoster } from '../helpers/roster.ts';
import { setCohortStart, setCrisisContacts } from '../students/helpers.ts';
import { CHROMIUM, openBrowser } from './chromium.ts';

const SCREENSHOTS = path.resolve(import.meta.dirname, '../../test-artifacts/screenshots');

const DAY = 86_400_000;
const icsDate = (ms: number) =>
  new Date(ms)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');

/** A campus calendar whose events fall in the six weeks starting `start` (UTC midnight). */
function campusCalendar(start: number): Buffer {
  const event = (uid: string, offsetDays: number, hour: number, summary: string, extra: string[] = []) => [
    'BEGIN:VEVENT',
    `UID:${uid}`,
    'DTSTAMP:20260101T000000Z',
    `DTSTART:${icsDate(start + offsetDays * DAY + hour * 3_600_000)}`,
    `DTEND:${icsDate(start + offsetDays * DAY + (hour + 1) * 3_600_000)}`,
    `SUMMARY:${summary}`,
    ...extra,
    'END:VEVENT',
  ];
  return ics([
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//Test//Campus life//EN',
    ...event('welcome', 1, 10, 'Welcome talk', ['LOCATION:Great Hall']),
    ...event('tour', 2, 9, 'Library tour', ['RRULE:FREQ=WEEKLY;COUNT=6', 'LOCATION:Main library']),
    ...event('quiz', 9, 18, 'Quiz night', ['STATUS:CANCELLED']),
    ...event('fair', 15, 12, 'Clubs and societies fair', ['LOCATION:Student union']),
    'END:VCALENDAR',
  ]);
}

async function check(page: Page, name: string): Promise<void> {
  const results = await new AxeBuilder({ page }).analyze();
  const serious = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(
    serious.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
    [],
    `axe on ${name}`,
  );
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, `student-${name}.png`), fullPage: true });
}

if (!existsSync(CHROMIUM)) {
  console.log(
    `student app browser test skipped: no Chromium at ${CHROMIUM} (apt-get install -y chromium-headless-shell)`,
  );
  test('student app in a browser: skipped', { skip: `no Chromium at ${CHROMIUM}` }, () => {});
} else {
  describe('student app in a browser (phone size)', () => {
    let ctx: TestContext;
    let idp: DevIdp;
    let feeds: FeedServer;
    let browser: Browser;
    let base: string;
    before(async () => {
      const port = await freePort();
      base = `http://127.0.0.1:${port}`;
      idp = await startTestIdp({ clients: [{ ...TEST_CLIENT, redirect_uris: [`${base}/auth/callback`] }] });
      feeds = await startFeedServer();
      ctx = await startTestApp('pglite', {
        config: { allowLoopbackOutbound: true },
        env: { PUBLIC_BASE_URL: base },
      });
      await ctx.app.listen({ host: '127.0.0.1', port });
      browser = await openBrowser();
    });
    after(async () => {
      await browser?.close();
      await ctx?.close();
      await feeds?.close();
      await idp?.close();
    });

    async function setUp(): Promise<SeededTenant> {
      const tenant = await seedTenant(ctx);
      const provider = await ctx.admin('PUT', `/admin/v1/institutions/${tenant.slug}/identity-provider`, {
        issuer: idp.issuer,
        client_id: TEST_CLIENT.client_id,
        client_secret: TEST_CLIENT.client_secret,
        email_domains: [],
      });
      assert.equal(provider.statusCode, 200, provider.body);
      const push = await pushRoster(ctx, tenant, {
        students: [{ email: 'ana.lima@student.example.edu', student_id_ext: 'S-1', first_name: 'Ana' }],
      });
      assert.equal(push.statusCode, 200, push.body);
      // Week 3: the cohort started 15 days ago.
      const start = Math.floor(Date.now() / DAY) * DAY - 15 * DAY;
      await setCohortStart(ctx, tenant, new Date(start).toISOString().slice(0, 10));
      await setCrisisContacts(ctx, tenant);
      feeds.routes.set('/campus.ics', { body: campusCalendar(start) });
      const feed = await ctx.admin('POST', `/admin/v1/institutions/${tenant.slug}/calendar-feeds`, {
        url: feeds.url('/campus.ics'),
        name: 'Campus life',
      });
      assert.equal(feed.statusCode, 201, feed.body);
      const fetched = await ctx.admin(
        'POST',
        `/admin/v1/institutions/${tenant.slug}/calendar-feeds/${feed.json().id}/fetch`,
      );
      assert.equal(fetched.json().status, 'ok', fetched.body);
      return tenant;
    }

    test('sign in, home, a normal and a crisis request, a staff change arrives', async () => {
      const tenant = await setUp();
      const context = await browser.newContext({
        viewport: { width: 390, height: 844 },
        deviceScaleFactor: 2,
        isMobile: true,
        hasTouch: true,
        // Fixed, so the localised times in the screenshots do not depend on the machine.
        timezoneId: 'Europe/London',
        locale: 'en-GB',
      });
      const page = await context.newPage();
      try {
        // Not signed in: /app/ sends the browser to sign-in; find the institution, go to its provider.
        await page.goto(`${base}/app/`);
        assert.match(page.url(), /\/auth\/sign-in\?return_to=/);
        await page.getByLabel('Institution or email').fill(`Institution ${tenant.slug}`);
        await page.getByRole('button', { name: 'Find' }).click();
        await page.getByRole('link', { name: `Sign in to Institution ${tenant.slug}` }).click();
        // The provider's page: choose the roster student; the redirects bring the browser back.
        await page.getByRole('button', { name: /ana\.lima@student\.example\.edu/ }).click();
        await page.waitForURL(`${base}/app/`);

        await assert.doesNotReject(page.getByText('Week 3 of 6').waitFor());
        assert.equal(await page.getByText('Welcome talk').count(), 1);
        assert.ok((await page.getByText('Library tour').count()) >= 5);
        assert.equal(await page.getByRole('heading', { name: /Week 3 this week/ }).count(), 1);
        // Nothing overflows the phone's width.
        // (Expressions as strings: they run in the page, whose DOM types this project does not load.)
        assert.equal(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth'), true);
        // Keyboard: the first Tab lands on the skip link, which moves focus to the content.
        await page.keyboard.press('Tab');
        assert.equal(await page.evaluate('document.activeElement?.textContent'), 'Skip to content');
        await check(page, 'home');

        // A normal request.
        await page.getByRole('link', { name: 'Ask for help' }).first().click();
        await page.waitForURL(`${base}/app/requests/new`);
        await page.getByRole('button', { name: 'Send request' }).click();
        await page.getByRole('alert').waitFor();
        await check(page, 'raise-problems');
        await page
          .getByLabel('What do you need help with?')
          .fill('I cannot find my timetable for next week.');
        await page.getByLabel('Studies and assessments').check();
        await check(page, 'raise');
        await page.getByRole('button', { name: 'Send request' }).click();
        await page.getByText('Your request was sent').waitFor();
        const normalUrl = page.url();
        const normalId = /\/app\/requests\/([0-9a-f-]{36})/.exec(normalUrl)?.[1];
        assert.ok(normalId);
        assert.equal(await page.getByText('Who you can reach right now').count(), 0);
        await check(page, 'raised');

        // The crisis path: contacts at once on the form, and again on the confirmation.
        await page.getByRole('link', { name: /Need urgent help now/ }).click();
        await page.waitForURL(`${base}/app/crisis`);
        await page.getByText('Who you can reach right now').waitFor();
        assert.equal(await page.getByRole('link', { name: 'Call +44 20 7946 0000' }).count(), 1);
        await check(page, 'crisis-form');
        await page.getByLabel('What is happening?').fill('I do not feel safe tonight.');
        await page.getByRole('button', { name: 'Send urgent request' }).click();
        await page.getByText('Your urgent request was sent').waitFor();
        assert.equal(await page.getByRole('link', { name: 'Call +44 20 7946 0000' }).count(), 1);
        await check(page, 'crisis-raised');
        const crisisId = /\/app\/requests\/([0-9a-f-]{36})/.exec(page.url())?.[1];
        const events = (await ctx.admin('GET', `/admin/v1/institutions/${tenant.slug}/events`)).json()
          .items as {
          type: string;
          help_request_id: string;
        }[];
        assert.deepEqual(
          events.filter((e) => e.help_request_id === crisisId).map((e) => e.type),
          ['help_request.created', 'help_request.crisis'],
        );

        // A staff change through the admin API arrives on the student's page; the note does not.
        const staffBase = `/admin/v1/institutions/${tenant.slug}/help-requests/${normalId}`;
        await ctx.admin('POST', `${staffBase}/notes`, {
          note: 'Staff only: timetable bug',
          staff: 'Sam Staff',
        });
        const changed = await ctx.admin('POST', `${staffBase}/status`, {
          status: 'in_progress',
          staff: 'Sam Staff',
        });
        assert.equal(changed.statusCode, 200, changed.body);
        await page.getByRole('link', { name: 'My requests' }).click();
        await page.waitForURL(`${base}/app/requests`);
        await page.getByText('Being worked on').first().waitFor();
        await check(page, 'requests');
        await page.goto(normalUrl.replace('?raised=1', ''));
        await page.getByText('Sent → Being worked on').waitFor();
        assert.equal(await page.getByText('timetable bug').count(), 0);
        await check(page, 'request-changed');
      } finally {
        await context.close();
      }
    });
  });
}
