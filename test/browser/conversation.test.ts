// The conversation in a real browser: a staff member inserts a saved reply, edits it and sends it
// from a request's page (the reply and the internal note visibly apart); the student, on a 390 px
// wide phone, sees the request marked new, reads the reply (never the note) and answers; the staff
// member sees the answer. axe-core on every page, screenshots saved under
// test-artifacts/screenshots/ (conversation-*.png).
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { createHelpRequest } from '../../src/domain/helpdesk/requests.ts';
import { changeStatus } from '../../src/domain/helpdesk/staff-changes.ts';
import { startSession } from '../../src/domain/people/sessions.ts';
import { createSavedReply } from '../../src/domain/saved-replies/saved-replies.ts';
import { seedTenant } from '../helpers/app.ts';
import { pushRoster } from '../helpers/roster.ts';
import { browserSuite, SCREENSHOTS } from './harness.ts';

const NOTE = 'Internal: spoke to the fees office, waiver likely';
const SAVED = 'We have received your message and a member of the team will call you today.';

browserSuite('the conversation in a browser', (h) => {
  /** axe on a phone-sized page (no serious or critical violation) and a full-page screenshot. */
  async function checkPhone(page: Page, name: string) {
    const results = await new AxeBuilder({ page }).analyze();
    const serious = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    assert.deepEqual(
      serious.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
      [],
      `accessibility of ${page.url()}`,
    );
    await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
  }

  test('a staff reply read by the student on a phone, and answered', async () => {
    const { ctx, base } = h();
    const tenant = await seedTenant(ctx);
    const push = await pushRoster(ctx, tenant, {
      students: [{ email: 'ana.lima@student.example.edu', student_id_ext: 'S-1', first_name: 'Ana' }],
    });
    assert.equal(push.statusCode, 200, push.body);
    const { rows } = await ctx.db.query<{ id: string }>('SELECT id FROM students WHERE institution_id = $1', [
      tenant.institutionId,
    ]);
    const studentId = rows[0].id;
    const request = await createHelpRequest(ctx.deps, tenant.institutionId, {
      studentId,
      category: 'financial',
      summary: 'I cannot pay this term’s fees and I am scared I will be withdrawn.',
    });
    await createSavedReply(ctx.deps, tenant.institutionId, {
      name: 'We will call you',
      body: SAVED,
    });

    // Staff: the request page, a note, then a saved reply inserted, edited and sent.
    const staff = await h().person(tenant, { roles: ['staff'], name: 'Kai Lee' });
    const desk = await h().open(staff);
    const url = `/console/${tenant.slug}/inbox/${request.id}`;
    await desk.page.goto(url);
    await desk.page.getByLabel('Note for staff').fill(NOTE);
    await desk.page.getByRole('button', { name: 'Add internal note' }).click();
    await desk.page.waitForURL(/done=note_added/);
    await desk.page.getByLabel('Saved reply').selectOption({ label: 'We will call you' });
    await desk.page.getByRole('button', { name: 'Insert into the reply' }).click();
    const box = desk.page.getByLabel('Reply to the student');
    assert.equal(await box.inputValue(), SAVED);
    await box.fill(`Hello Ana, ${SAVED} Fees can wait while we talk.`);
    await h().check(desk.page, 'conversation-staff-before-send');
    await desk.page.getByRole('button', { name: 'Send reply to the student' }).click();
    await desk.page.waitForURL(/done=reply_sent/);
    assert.match(
      (await desk.page.locator('#conversation').textContent()) ?? '',
      /Fees can wait while we talk/,
    );
    await changeStatus(ctx.deps, tenant.institutionId, request.id, {
      status: 'in_progress',
      staff: 'Kai Lee',
    });

    // The student, on a phone.
    const session = await startSession(ctx.deps, {
      kind: 'student',
      studentId,
      institutionId: tenant.institutionId,
    });
    const phone = await h().browser.newContext({
      baseURL: base,
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
    });
    await phone.addCookies([
      { name: 'ssp_session', value: session.token, url: base, httpOnly: true, sameSite: 'Lax' },
    ]);
    const mobile = await phone.newPage();
    await mobile.goto('/app/requests');
    assert.match((await mobile.locator('main').textContent()) ?? '', /Money and fees\s*New/);
    await checkPhone(mobile, 'conversation-student-list');
    await mobile.getByRole('link', { name: 'Money and fees' }).click();
    const main = mobile.locator('main');
    assert.match((await main.textContent()) ?? '', /Fees can wait while we talk/);
    assert.match((await main.textContent()) ?? '', /Student support/);
    assert.doesNotMatch((await main.textContent()) ?? '', /spoke to the fees office|Kai Lee/);
    // Nothing runs off the side of the phone.
    const width = await mobile.evaluate<number>('document.documentElement.scrollWidth');
    assert.ok(width <= 390, `the page is ${width} px wide`);
    await checkPhone(mobile, 'conversation-student-reads');
    await mobile.getByLabel('Write to student support').fill('Thank you. I am free after 2 pm.');
    await mobile.getByRole('button', { name: 'Send' }).click();
    await mobile.waitForURL(/answered=1/);
    assert.match((await main.textContent()) ?? '', /Your message was sent/);
    assert.match((await main.textContent()) ?? '', /I am free after 2 pm/);
    await checkPhone(mobile, 'conversation-student-answered');

    // The staff member sees the answer in the conversation.
    await desk.page.goto(url);
    assert.match(
      (await desk.page.locator('#conversation').textContent()) ?? '',
      /The student wrote[\s\S]*I am free after 2 pm/,
    );
    await h().check(desk.page, 'conversation-staff-answer');
    await phone.close();
    await desk.context.close();
  });
});
