// Every console form is `novalidate` (checked on the same crawl). No page says an error code in a sentence: every console, student and sign-in page, every error
// answer (not found, not allowed, a sign-in that failed) and every form posted empty, crawled as
// the people who use them. An error code (a snake_case code of src/errors.ts's table) may appear
// only inside a <details> element, the "Details" disclosure where support reads it with the
// request id.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { errorStatus } from '../../src/errors.ts';
import { describeEachDatabase, seedTenant } from '../helpers/app.ts';
import { createHelpRequest } from '../helpers/helpdesk.ts';
import { type Browser, operatorBrowser, personBrowser, studentBrowser } from '../helpers/people.ts';
import { pushEnrolments, pushRoster } from '../helpers/roster.ts';
import { addEndpoint } from '../helpers/webhooks.ts';

/** The codes a person could mistake for words are left out: only snake_case ones are looked for. */
const codes = Object.keys(errorStatus).filter((code) => code.includes('_'));

/** The error codes a page shows outside its <details> elements. */
export function codesOutsideDetails(html: string): string[] {
  const text = html
    .replace(/<(script|style)\b[\s\S]*?<\/\1>/g, ' ')
    .replace(/<details\b[\s\S]*?<\/details>/g, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replaceAll('&amp;', '&')
    .replaceAll('&quot;', '"')
    .replaceAll('&#39;', "'");
  return codes.filter((code) => new RegExp(`(^|[^a-z_])${code}($|[^a-z_])`).test(text));
}

test('the check itself: a code in a sentence is found, one inside Details is not', () => {
  assert.deepEqual(codesOutsideDetails('<p>Not allowed (manage_integrations_required)</p>'), [
    'manage_integrations_required',
  ]);
  assert.deepEqual(
    codesOutsideDetails(
      '<p>Not found.</p><details><summary>Details</summary><code>not_found</code></details>',
    ),
    [],
  );
});

describeEachDatabase(
  'error codes stay out of sentences on every page',
  (ctx) => {
    test('every console, student and sign-in page, error answer and empty form', async () => {
      const tenant = await seedTenant(ctx());
      const student = await studentBrowser(ctx(), tenant);
      const manager = await personBrowser(ctx(), tenant, {
        roles: ['admin'],
        permissions: ['manage_integrations'],
      });
      const staff = await personBrowser(ctx(), tenant, { roles: ['staff'] });
      const operator = await operatorBrowser(ctx());
      const other = await personBrowser(ctx(), tenant, { roles: ['staff'], name: 'Other Person' });

      // Runs with row errors, a help request of the student, a webhook endpoint.
      const roster = await pushRoster(ctx(), tenant, {
        students: [{ email: 'not-an-email', student_id_ext: 'S2' }, { student_id_ext: 'S3' }],
      });
      assert.equal(roster.statusCode, 200, roster.body);
      const enrolments = await pushEnrolments(ctx(), tenant, {
        programs: [{ program_code: 'NURS' }, { program_code: 'nurs' }],
        enrolments: [{ student_id_ext: 'S404', unit_code: 'NURS9', term_code: '2026-S1' }],
      });
      assert.equal(enrolments.statusCode, 200, enrolments.body);
      const request = await createHelpRequest(ctx(), {
        ...tenant,
        syncSecret: '',
        studentIds: [student.studentId],
      });
      const endpoint = await addEndpoint(ctx(), tenant, { url: 'https://127.0.0.1:9/ssp' });

      /** The id a path's parameter names, by the page it is on; an unknown one is a fresh UUID. */
      const idFor = (url: string, param: string): string => {
        if (param === 'slug') return tenant.slug;
        if (url.startsWith('/app/')) return request.id;
        if (url.includes('/runs/')) return enrolments.json().run_id;
        if (url.includes('/inbox/')) return request.id;
        if (url.includes('/webhooks/')) return endpoint.id;
        if (url.includes('/students/')) return student.studentId;
        if (url.includes('/people/')) return other.personId;
        if (url.includes('/cohorts/')) return tenant.cohortId;
        return randomUUID();
      };
      const fill = (url: string, ids: (url: string, param: string) => string) =>
        url.replace(/:([a-zA-Z]+)/g, (_all, param: string) => ids(url, param));
      const who = (route: { url: string; access: string }): Browser =>
        route.url.startsWith('/app') ? student : route.access === 'operator' ? operator : manager;

      const problems: string[] = [];
      const seen = { pages: 0, refusals: 0 };
      const look = async (browser: Browser, method: 'GET' | 'POST', url: string) => {
        const res = await browser.request(method, url, method === 'POST' ? {} : undefined);
        if (!String(res.headers['content-type'] ?? '').startsWith('text/html')) return;
        assert.ok(res.statusCode < 500, `${method} ${url}: ${res.statusCode}`);
        if (res.statusCode === 200) seen.pages++;
        else seen.refusals++;
        const found = codesOutsideDetails(res.body);
        if (found.length) problems.push(`${method} ${url} (${res.statusCode}): ${found.join(', ')}`);
        // Every console form answers on the page, never with the browser's own bubbles.
        const bubbling =
          url.startsWith('/console') && res.body.match(/<form\b(?![^>]*\bnovalidate\b)[^>]*>/g);
        if (bubbling) problems.push(`${method} ${url}: a form without novalidate: ${bubbling[0]}`);
      };

      const routes = ctx()
        .app.routeAccess.filter((route) => /^\/(console|app|auth)(\/|$)/.test(route.url))
        .filter((route) => route.method === 'GET' || route.method === 'POST');
      for (const route of routes.filter((r) => r.method === 'GET')) {
        await look(who(route), 'GET', fill(route.url, idFor));
        // The same page of something that does not exist: its not-found answer.
        if (/:(?!slug)/.test(route.url))
          await look(
            who(route),
            'GET',
            fill(route.url, (_u, p) => (p === 'slug' ? tenant.slug : randomUUID())),
          );
      }
      // Refusals and listings refused: not allowed, another surface's 404, a cursor and a filter edited by hand.
      await look(staff, 'GET', `/console/${tenant.slug}/secrets`);
      await look(staff, 'GET', `/console/${tenant.slug}/webhooks`);
      await look(student, 'GET', `/app/requests/${randomUUID()}`);
      await look(manager, 'GET', `/console/${tenant.slug}/students?cursor=junk`);
      await look(manager, 'GET', `/console/${tenant.slug}/students?status=bogus`);
      await look(manager, 'GET', `/console/${tenant.slug}/runs?cursor=junk`);
      await look(manager, 'GET', '/auth/callback?state=nothing&code=nothing');
      // Every form posted empty (sign-in and sign-out aside: they end or start sessions).
      for (const route of routes.filter((r) => r.method === 'POST' && !r.url.startsWith('/auth'))) {
        await look(who(route), 'POST', fill(route.url, idFor));
      }
      assert.deepEqual(problems, []);
      // The crawl read the pages themselves, not only redirects and refusals.
      assert.ok(seen.pages >= 45 && seen.refusals >= 40, JSON.stringify(seen));
    });
  },
  { config: { allowLoopbackOutbound: true } },
);
