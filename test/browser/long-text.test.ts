// Long unbroken text never widens a page: a 300-character word in a help request's description,
// a student's name, a webhook endpoint's URL, a run's row errors and a calendar feed's URL wraps
// (or scrolls inside its own box) on a phone (390 px wide) and on a desktop (1280 px wide). Each
// page is checked with axe on the phone and kept as a screenshot at both sizes.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { startSession } from '../../src/domain/people/sessions.ts';
import { sendTestEvent } from '../../src/domain/webhooks/deliveries.ts';
import { seedTenant } from '../helpers/app.ts';
import { receiverPool } from '../helpers/receiver.ts';
import { pushRoster } from '../helpers/roster.ts';
import { insertStudents } from '../helpers/students.ts';
import { addEndpoint, workerFor } from '../helpers/webhooks.ts';
import { browserSuite, SCREENSHOTS } from './harness.ts';

const receivers = receiverPool();
const word = (letter: string) => `${letter}${'x'.repeat(298)}${letter}`;

browserSuite('pages with long unbroken text', (h) => {
  test('a 300-character word wraps instead of widening the page, at 390 and 1280 px', async () => {
    const { ctx, base } = h();
    const tenant = await seedTenant(ctx);
    const [studentId] = await insertStudents(ctx.db, tenant, [
      { email: 'long-name@example.edu', student_id_ext: 'LONG-1', first_name: word('n') },
    ]);
    const raised = await ctx.admin('POST', `/admin/v1/institutions/${tenant.slug}/help-requests`, {
      student_id: studentId,
      priority: 'normal',
      summary: `Please help: ${word('d')} thanks`,
      actor: 'Student app',
    });
    assert.equal(raised.statusCode, 201, raised.body);
    const requestId = raised.json().id as string;

    const receiver = await receivers({
      status: 500,
      headers: { 'x-trace': word('h') },
      body: JSON.stringify({ error: word('e') }),
    });
    const endpoint = await addEndpoint(ctx, tenant, {
      url: `${receiver.url}/${word('u')}`,
      description: word('w'),
    });
    await sendTestEvent(ctx.deps, tenant.institutionId, endpoint.id);
    await workerFor(ctx, tenant, ctx.deps.clock).drain();
    const attempts = await ctx.db.query<{ id: string }>(
      'SELECT id FROM webhook_attempts WHERE endpoint_id = $1',
      [endpoint.id],
    );
    assert.equal(attempts.rows.length, 1);

    const pushed = await pushRoster(ctx, tenant, {
      // An email that is not one, and a 200-character SIS id: the row's error shows both keys.
      students: [
        { email: word('m').slice(0, 250), student_id_ext: word('s').slice(0, 200), first_name: 'F' },
      ],
    });
    assert.equal(pushed.statusCode, 200, pushed.body);
    const runId = pushed.json().run_id as string;

    const feed = await ctx.admin('POST', `/admin/v1/institutions/${tenant.slug}/calendar-feeds`, {
      url: `${base}/no-such-calendar/${word('c')}.ics`,
      name: word('k').slice(0, 200),
    });
    assert.equal(feed.statusCode, 201, feed.body);
    const feedId = feed.json().id as string;

    const admin = await h().person(tenant, {
      roles: ['admin', 'staff'],
      permissions: ['manage_integrations'],
    });
    const at = `/console/${tenant.slug}`;
    const pages: [string, string][] = [
      ['inbox', `${at}/inbox`],
      ['help-request', `${at}/inbox/${requestId}`],
      ['students', `${at}/students`],
      ['student', `${at}/students/${studentId}`],
      ['webhooks', `${at}/webhooks`],
      ['webhook', `${at}/webhooks/${endpoint.id}`],
      ['webhook-attempt', `${at}/webhooks/${endpoint.id}/attempts/${attempts.rows[0].id}`],
      ['runs', `${at}/runs`],
      ['run', `${at}/runs/${runId}`],
      ['calendar-feeds', `${at}/calendar-feeds`],
      ['calendar-feed', `${at}/calendar-feeds/${feedId}`],
    ];
    await h().withPage(admin, async (page) => {
      for (const [name, url] of pages) {
        for (const width of [390, 1280]) {
          await page.setViewportSize({ width, height: 900 });
          const res = await page.goto(url);
          assert.equal(res?.status(), 200, `${name}: ${url}`);
          const { scrollWidth, innerWidth } = await page.evaluate<{
            scrollWidth: number;
            innerWidth: number;
          }>('({ scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth })');
          // On failure, name the elements reaching past the window's right edge.
          const past =
            scrollWidth <= innerWidth
              ? ''
              : await page.evaluate<string>(
                  `[...document.querySelectorAll('main *')].filter((el) => el.getBoundingClientRect().right > window.innerWidth + 1).slice(0, 6).map((el) => el.tagName + '.' + el.className + '#' + el.id).join(' ')`,
                );
          assert.ok(scrollWidth <= innerWidth, `${name} at ${width} px is ${scrollWidth} px wide: ${past}`);
          if (width === 390) await h().check(page, `long-text-${name}-390`);
          else
            await page.screenshot({
              path: path.join(SCREENSHOTS, `long-text-${name}-1280.png`),
              fullPage: true,
            });
        }
      }
    });

    // The student's own request, on the student pages.
    const student = await startSession(ctx.deps, {
      kind: 'student',
      studentId,
      institutionId: tenant.institutionId,
    });
    const mine = await h().open(student);
    try {
      for (const width of [390, 1280]) {
        await mine.page.setViewportSize({ width, height: 900 });
        const res = await mine.page.goto(`/app/requests/${requestId}`);
        assert.equal(res?.status(), 200);
        const wide = await mine.page.evaluate<number>(
          'document.documentElement.scrollWidth - window.innerWidth',
        );
        assert.ok(wide <= 0, `the student's request at ${width} px is ${wide} px too wide`);
        await mine.page.screenshot({
          path: path.join(SCREENSHOTS, `long-text-student-request-${width}.png`),
          fullPage: true,
        });
      }
    } finally {
      await mine.context.close();
    }
  });
});
