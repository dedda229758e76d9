// The inbox as staff work from it, in a real browser: it refreshes itself while open (a crisis
// request raised elsewhere appears within 10 seconds and is announced in the live region, the
// filters and the scroll position kept), a crisis request nobody picks up within the window puts a
// banner on every console page until someone does, and under 600 px the inbox reads as cards.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createHelpRequest } from '../../src/domain/helpdesk/requests.ts';
import { inboxSettings } from '../../src/domain/inbox/settings.ts';
import { createEscalationWorker } from '../../src/workers/escalation.ts';
import { seedTenant } from '../helpers/app.ts';
import { seedStudents } from '../helpers/helpdesk.ts';
import { browserSuite } from './harness.ts';

browserSuite('console: the live inbox', (h) => {
  test('a new crisis request appears within 10 seconds and is announced; filters and scroll stay', async () => {
    const { ctx } = h();
    const tenant = await seedTenant(ctx);
    const students = await seedStudents(ctx, tenant, 3);
    for (let i = 0; i < 30; i++)
      await createHelpRequest(ctx.deps, tenant.institutionId, {
        studentId: students[i % 3],
        priority: i % 2 ? 'normal' : 'high',
        category: 'academic',
        summary: `Question ${i + 1} about an assessment`,
      });
    const staff = await h().person(tenant, { roles: ['staff'], name: 'Sam Staff' });
    await h().withPage(staff, async (page) => {
      await page.goto(`/console/${tenant.slug}/inbox?category=wellbeing`);
      await page.getByText('No request matches.').waitFor();
      await page.goto(`/console/${tenant.slug}/inbox`);
      await page.locator('#requests tbody tr').first().waitFor();
      await page.evaluate('window.scrollTo(0, 600)');
      const scrolled = await page.evaluate<number>('window.scrollY');
      assert.ok(scrolled > 0);

      const raised = Date.now();
      const created = await createHelpRequest(ctx.deps, tenant.institutionId, {
        studentId: students[0],
        priority: 'crisis',
        category: 'wellbeing',
        summary: 'I need to talk to someone now',
      });
      await page.locator(`[data-crisis-id="${created.id}"]`).waitFor({ timeout: 10_000 });
      assert.ok(Date.now() - raised < 10_000, 'within 10 seconds');
      await page.waitForFunction(
        "/New crisis request/.test(document.getElementById('inbox-announce').textContent)",
        undefined,
        { timeout: 2_000 },
      );
      const announced = await page.locator('#inbox-announce').textContent();
      assert.match(announced ?? '', /New crisis request: I need to talk to someone now/);
      assert.equal(await page.locator('#inbox-announce').getAttribute('aria-live'), 'assertive');
      // Kept, not sent back to the top (the browser's scroll anchoring may move it a few pixels to
      // keep the rows in view when the crisis panel grows above them).
      const now = await page.evaluate<number>('window.scrollY');
      assert.ok(Math.abs(now - scrolled) < 100, `scrolled to ${now}, was ${scrolled}`);
      assert.match(page.url(), /\/inbox$/);
      await page.evaluate('window.scrollTo(0, 0)');
      await h().check(page, 'inbox-live-crisis');

      // With filters: the refresh keeps them (a wellbeing filter shows the new request only).
      await page.goto(`/console/${tenant.slug}/inbox?category=wellbeing&q=talk`);
      assert.equal(await page.locator('[data-crisis-id]').count(), 1);
      await page.waitForTimeout(5_500);
      assert.equal(await page.locator('#f-category').inputValue(), 'wellbeing');
      assert.equal(await page.locator('#f-q').inputValue(), 'talk');
      assert.equal(
        await page.locator('#requests tbody tr').count(),
        1,
        'No request matches (the filter held)',
      );
    });
  });

  test('a crisis request nobody picks up: after the window, a banner on every page until assigned', async () => {
    const { ctx } = h();
    const tenant = await seedTenant(ctx);
    const [student] = await seedStudents(ctx, tenant, 1);
    const created = await createHelpRequest(ctx.deps, tenant.institutionId, {
      studentId: student,
      priority: 'crisis',
      summary: 'Nobody has answered me',
    });
    const staff = await h().person(tenant, { roles: ['staff'], name: 'Kai Staff' });
    // The worker's clock 16 minutes on: past the default 15-minute window.
    const later = { now: () => new Date(Date.now() + 16 * 60_000) };
    const worker = createEscalationWorker({
      db: ctx.db,
      clock: later,
      institutionIds: [tenant.institutionId],
    });
    assert.equal((await worker.runOnce()).escalated, 1);

    await h().withPage(staff, async (page) => {
      for (const path of ['inbox', 'students', 'me/notifications']) {
        await page.goto(`/console/${tenant.slug}/${path}`);
        const banner = page.locator('section.escalation-banner');
        await banner.waitFor();
        assert.match(
          (await banner.textContent()) ?? '',
          /A crisis request is waiting for someone to pick it up/,
        );
      }
      await h().check(page, 'escalation-banner');
      await page.locator('section.escalation-banner a').first().click();
      await page.waitForURL(`**/inbox/${created.id}`);
      await page.getByRole('button', { name: 'Assign to me' }).click();
      await page.waitForURL('**?done=assignment_changed');
      assert.equal(await page.locator('section.escalation-banner').count(), 0, 'gone once picked up');
      const timeline = (await page.locator('body').textContent()) ?? '';
      assert.match(timeline, /escalated/i);
    });
  });

  test('under 600 px the inbox reads as cards, not a table that scrolls sideways', async () => {
    const { ctx } = h();
    const tenant = await seedTenant(ctx);
    const students = await seedStudents(ctx, tenant, 2);
    await createHelpRequest(ctx.deps, tenant.institutionId, {
      studentId: students[0],
      priority: 'crisis',
      category: 'wellbeing',
      summary: 'Panic attacks before exams',
    });
    await createHelpRequest(ctx.deps, tenant.institutionId, {
      studentId: students[1],
      priority: 'high',
      category: 'financial',
      summary: 'Rent is due and my loan is late',
    });
    const staff = await h().person(tenant, { roles: ['staff'], name: 'Mo Staff' });
    const context = await h().browser.newContext({
      baseURL: h().base,
      viewport: { width: 390, height: 844 },
    });
    await context.addCookies([
      { name: 'ssp_session', value: staff.token, url: h().base, httpOnly: true, sameSite: 'Lax' },
    ]);
    const page = await context.newPage();
    try {
      await page.goto(`/console/${tenant.slug}/inbox`);
      await page.locator('#requests tbody tr').first().waitFor();
      const widths = await page.evaluate<{
        scroll: number;
        inner: number;
        display: string;
        tableScroll: number;
        box: number;
      }>(`({
        scroll: document.documentElement.scrollWidth,
        inner: window.innerWidth,
        display: getComputedStyle(document.querySelector('#requests tbody tr')).display,
        tableScroll: document.querySelector('#requests').parentElement.scrollWidth,
        box: document.querySelector('#requests').parentElement.clientWidth,
      })`);
      assert.ok(widths.scroll <= widths.inner, `page ${widths.scroll} wide at ${widths.inner}`);
      assert.equal(widths.display, 'block', 'each row a card');
      assert.ok(widths.tableScroll <= widths.box, 'the table box does not scroll sideways');
      const card = (await page.locator('#requests tbody tr').first().textContent()) ?? '';
      assert.match(card, /Money and fees/);
      assert.match(card, /Urgent/);
      assert.match(card, /0 min \(target 4 h\)/);
      assert.equal(
        await page.locator('#requests tbody tr').first().locator('td').nth(5).getAttribute('data-label'),
        'Waiting',
      );
      await h().check(page, 'inbox-cards-390');
    } finally {
      await context.close();
    }
  });

  test('an admin sets the targets, the window and the escalation list; a bad value is said next to its field', async () => {
    const { ctx } = h();
    const tenant = await seedTenant(ctx);
    const admin = await h().person(tenant, { roles: ['admin'], name: 'Ari Admin' });
    await h().person(tenant, { roles: ['staff'], name: 'Oni Call' });
    await h().withPage(
      admin,
      async (page) => {
        await page.goto(`/console/${tenant.slug}/response-targets`);
        assert.equal(await page.getByLabel('Urgent', { exact: true }).inputValue(), '240');
        await page.getByLabel('Crisis', { exact: true }).fill('0');
        await page.getByLabel('Escalation window for crisis requests, in minutes').fill('10');
        await page.getByLabel(/Oni Call/).check();
        await page.getByRole('button', { name: 'Save targets and escalation' }).click();
        await page.locator('#target_crisis-error').waitFor();
        assert.match(
          (await page.locator('#target_crisis-error').textContent()) ?? '',
          /whole number of minutes from 1/,
        );
        assert.equal(
          await page.getByLabel('Escalation window for crisis requests, in minutes').inputValue(),
          '10',
        );
        assert.ok(await page.getByLabel(/Oni Call/).isChecked(), 'the values typed are kept');
        await h().check(page, 'response-targets-error');
        await page.getByLabel('Crisis', { exact: true }).fill('10');
        await page.getByRole('button', { name: 'Save targets and escalation' }).click();
        await page.waitForURL('**?done=saved');
        const saved = await inboxSettings(ctx.deps.db, tenant.institutionId);
        assert.deepEqual(saved, {
          targets: { crisis: 10, high: 240, normal: 2880, low: 7200 },
          escalation_minutes: 10,
        });
      },
      'response-targets',
    );
  });
});
