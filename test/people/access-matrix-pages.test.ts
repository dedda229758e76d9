// Every page (the console, the student pages, sign-in) against every kind of caller, as the admin
// API's matrix does for its endpoints:
// - the table below is this test's own statement of who may open each page; a page whose declared
//   access differs from it, or a new page it does not list, fails;
// - each caller gets what the policy says: the page, or the refusal in the page's own form (the
//   not-allowed page, a redirect to sign-in, a student sent to the student pages and a staff member
//   to the console), and another institution's page is exactly the page of one that does not exist;
// - the console can do no more than the API for the same person: each console change is mapped to
//   the admin API route making the same change, and the console's access grants no one the API's
//   refuses.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import type { Access } from '../../src/domain/access/policy.ts';
import { describeEachDatabase, seedTenant } from '../helpers/app.ts';
import {
  type Browser,
  browserWith,
  operatorBrowser,
  personBrowser,
  studentBrowser,
} from '../helpers/people.ts';

const table: [RegExp, Access][] = [
  [
    /^(GET|POST) \/auth\/(sign-in|sign-in\/operator|:slug\/sign-in|callback|operator-link\/:token)$/,
    'public',
  ],
  [/^POST \/auth\/sign-out$/, 'visitor'],
  [/^GET \/console$/, 'self'],
  [/^POST \/console$/, 'operator'],
  [/^POST \/console\/:slug\/campuses\/merge$/, 'operator'],
  [/^POST \/console\/:slug\/(archive|restore)$/, 'operator'],
  [/^GET \/console\/:slug\/$/, 'read'],
  [
    /^GET \/console\/:slug\/(students|students\.csv|students\/:id|programs|terms|units|enrolments|campuses)$/,
    'read',
  ],
  [/^(GET|POST) \/console\/:slug\/inbox(\/|$)/, 'helpdesk'],
  [/^(GET|POST) \/console\/:slug\/me\/notifications$/, 'helpdesk'],
  [/^(GET|POST) \/console\/:slug\/notifications$/, 'admin'],
  [/^(GET|POST) \/console\/:slug\/response-targets$/, 'admin'],
  [/^(GET|POST) \/console\/:slug\/secrets\/help-sync(\/|$)/, 'integrations'],
  [/^(GET|POST) \/console\/:slug\/webhooks(\/|$)/, 'integrations'],
  [/^(GET|POST) \/console\/:slug\/oneroster-source(\/|$)/, 'integrations'],
  [/^POST \/console\/:slug\/identity-provider\/confirmation$/, 'operator'],
  [/^POST \/console\/:slug\/identity-provider$/, 'integrations'],
  [
    /^(GET|POST) \/console\/:slug\/(secrets|people|identity-provider|runs|full-syncs|calendar-feeds|crisis-contacts|cohorts|time-zone|audit|audit\.csv|saved-replies)(\/|$)/,
    'admin',
  ],
  [/^(GET|POST) \/console\/:slug\/(privacy|erasures|students\/:id\/(export|export\.json|erase))$/, 'admin'],
  [/^(GET|POST) \/app(\/|$)/, 'student'],
];

/** Console changes and the admin API route making the same change. */
const sameChange: [console: string, api: string][] = [
  ['POST /console', 'POST /admin/v1/institutions'],
  ['POST /console/:slug/campuses/merge', 'POST /admin/v1/institutions/:slug/campuses/merge'],
  ['POST /console/:slug/secrets/roster', 'POST /admin/v1/institutions/:slug/roster-secret'],
  ['POST /console/:slug/secrets/roster/revoke', 'DELETE /admin/v1/institutions/:slug/roster-secret'],
  ['POST /console/:slug/secrets/help-sync', 'POST /admin/v1/institutions/:slug/help-sync-secret'],
  ['POST /console/:slug/secrets/help-sync/revoke', 'DELETE /admin/v1/institutions/:slug/help-sync-secret'],
  [
    'POST /console/:slug/secrets/help-sync/rotate',
    'POST /admin/v1/institutions/:slug/help-sync-secret/rotate',
  ],
  ['POST /console/:slug/people', 'POST /admin/v1/institutions/:slug/people'],
  ['POST /console/:slug/people/:id', 'PATCH /admin/v1/institutions/:slug/people/:id'],
  ['POST /console/:slug/people/:id/sessions', 'DELETE /admin/v1/institutions/:slug/people/:id/sessions'],
  ['POST /console/:slug/people/:id/remove', 'DELETE /admin/v1/institutions/:slug/people/:id'],
  ['POST /console/:slug/identity-provider', 'PUT /admin/v1/institutions/:slug/identity-provider'],
  [
    'POST /console/:slug/identity-provider/confirmation',
    'POST /admin/v1/institutions/:slug/identity-provider/confirmation',
  ],
  ['POST /console/:slug/inbox/:id/status', 'POST /admin/v1/institutions/:slug/help-requests/:id/status'],
  ['POST /console/:slug/inbox/:id/notes', 'POST /admin/v1/institutions/:slug/help-requests/:id/notes'],
  ['POST /console/:slug/inbox/:id/reply', 'POST /admin/v1/institutions/:slug/help-requests/:id/replies'],
  ['POST /console/:slug/saved-replies', 'POST /admin/v1/institutions/:slug/saved-replies'],
  ['POST /console/:slug/saved-replies/:id', 'PATCH /admin/v1/institutions/:slug/saved-replies/:id'],
  ['POST /console/:slug/saved-replies/:id/delete', 'DELETE /admin/v1/institutions/:slug/saved-replies/:id'],
  ['POST /console/:slug/secrets/help-sync/replies', 'PUT /admin/v1/institutions/:slug/help-sync-settings'],
  [
    'POST /console/:slug/inbox/:id/assignment',
    'PUT /admin/v1/institutions/:slug/help-requests/:id/assignment',
  ],
  ['POST /console/:slug/webhooks', 'POST /admin/v1/institutions/:slug/webhook-endpoints'],
  ['POST /console/:slug/oneroster-source', 'PUT /admin/v1/institutions/:slug/oneroster-source'],
  ['POST /console/:slug/oneroster-source/sync', 'POST /admin/v1/institutions/:slug/oneroster-source/pulls'],
  ['POST /console/:slug/webhooks/:id/delete', 'DELETE /admin/v1/institutions/:slug/webhook-endpoints/:id'],
  [
    'POST /console/:slug/webhooks/:id/reveal-secret',
    'POST /admin/v1/institutions/:slug/webhook-endpoints/:id/reveal-secret',
  ],
  ['POST /console/:slug/calendar-feeds', 'POST /admin/v1/institutions/:slug/calendar-feeds'],
  ['POST /console/:slug/cohorts', 'POST /admin/v1/institutions/:slug/cohorts'],
  ['POST /console/:slug/cohorts/:id', 'PATCH /admin/v1/institutions/:slug/cohorts/:id'],
  ['POST /console/:slug/cohorts/:id/archive', 'POST /admin/v1/institutions/:slug/cohorts/:id/archive'],
  ['POST /console/:slug/cohorts/:id/restore', 'POST /admin/v1/institutions/:slug/cohorts/:id/restore'],
  ['POST /console/:slug/archive', 'POST /admin/v1/institutions/:slug/archive'],
  ['POST /console/:slug/restore', 'POST /admin/v1/institutions/:slug/restore'],
  ['POST /console/:slug/time-zone', 'PATCH /admin/v1/institutions/:slug'],
  ['POST /console/:slug/crisis-contacts', 'PUT /admin/v1/institutions/:slug/crisis-contacts'],
  ['POST /console/:slug/notifications', 'PUT /admin/v1/institutions/:slug/notification-recipients'],
  ['POST /console/:slug/me/notifications', 'PUT /admin/v1/institutions/:slug/me/notifications'],
  ['POST /console/:slug/erasures', 'POST /admin/v1/institutions/:slug/erasures'],
  ['POST /console/:slug/privacy', 'PATCH /admin/v1/institutions/:slug/retention'],
  ['POST /console/:slug/response-targets', 'PUT /admin/v1/institutions/:slug/inbox-settings'],
  ['POST /console/:slug/full-syncs/:id/confirm', 'POST /admin/v1/institutions/:slug/full-syncs/:id/confirm'],
];

type Persona = 'nobody' | 'student' | 'staff' | 'admin' | 'manager' | 'operator';
const personas: Persona[] = ['nobody', 'student', 'staff', 'admin', 'manager', 'operator'];
/** What each persona of the institution may use: this test's statement, not the policy's code. */
const granted: Record<Persona, Access[]> = {
  nobody: ['public', 'visitor'],
  student: ['public', 'visitor', 'self', 'student'],
  staff: ['public', 'visitor', 'self', 'read', 'helpdesk'],
  admin: ['public', 'visitor', 'self', 'read', 'helpdesk', 'admin'],
  manager: ['public', 'visitor', 'self', 'read', 'helpdesk', 'admin', 'integrations'],
  operator: ['public', 'visitor', 'self', 'operator', 'read', 'helpdesk', 'admin', 'integrations'],
};

const allows = (persona: Persona, access: Access) => granted[persona].includes(access);

const isPage = (url: string) => /^\/(console|app|auth)(\/|$)/.test(url);
const codeOf = (body: string) => /<code>([a-z_]+)<\/code>/.exec(body)?.[1];

describeEachDatabase('access matrix over every page', (ctx) => {
  const pageRoutes = () =>
    ctx()
      .app.routeAccess.filter((route) => route.method !== 'HEAD' && isPage(route.url))
      .map((route) => ({ ...route, key: `${route.method} ${route.url}` }));

  test('every page declares the access this table states for it', () => {
    const problems: string[] = [];
    for (const route of pageRoutes()) {
      const stated = table.find(([pattern]) => pattern.test(route.key))?.[1];
      if (stated === undefined) problems.push(`${route.key} is not in the matrix`);
      else if (stated !== route.access)
        problems.push(`${route.key} declares ${route.access}, the matrix says ${stated}`);
    }
    assert.ok(pageRoutes().length > 60, `found ${pageRoutes().length} pages`);
    assert.deepEqual(problems, []);
  });

  test('the console grants no change the admin API refuses the same person', () => {
    const declared = new Map(
      ctx().app.routeAccess.map((route) => [`${route.method} ${route.url}`, route.access]),
    );
    const problems: string[] = [];
    for (const [page, api] of sameChange) {
      const pageAccess = declared.get(page);
      const apiAccess = declared.get(api);
      if (!pageAccess || !apiAccess) {
        problems.push(`${page} or ${api} does not exist`);
        continue;
      }
      for (const persona of personas) {
        if (allows(persona, pageAccess) && !allows(persona, apiAccess))
          problems.push(`${persona} may ${page} (${pageAccess}) but not ${api} (${apiAccess})`);
      }
    }
    assert.deepEqual(problems, []);
  });

  test('each caller of A gets the page or its refusal, on A and on B', async () => {
    const a = await seedTenant(ctx());
    const b = await seedTenant(ctx());
    const browsers: Record<Persona, Browser> = {
      nobody: await browserWith(ctx(), 'no-session'),
      student: await studentBrowser(ctx(), a),
      staff: await personBrowser(ctx(), a, { roles: ['staff'] }),
      admin: await personBrowser(ctx(), a, { roles: ['admin'] }),
      manager: await personBrowser(ctx(), a, { roles: ['admin'], permissions: ['manage_integrations'] }),
      operator: await operatorBrowser(ctx()),
    };
    const call = (browser: Browser, method: string, url: string, slug: string) =>
      browser.request(
        method as 'GET' | 'POST',
        url.replace(':slug', slug).replace(/:[a-zA-Z]+/g, () => randomUUID()),
        method === 'GET' ? undefined : {},
      );

    const failures: string[] = [];
    for (const route of pageRoutes()) {
      // Sign-in's own pages start flows with the provider; their refusals are tested in test/people.
      if (route.access === 'public' || route.access === 'visitor') continue;
      const scoped = route.url.includes(':slug');
      for (const persona of personas) {
        const own = await call(browsers[persona], route.method, route.url, a.slug);
        const location = String(own.headers.location ?? '');
        const refusal =
          (own.statusCode === 403 && codeOf(own.body) === 'forbidden') ||
          (own.statusCode === 303 &&
            (location === '/app/' || location === '/console/' || location.startsWith('/auth/')));
        // The console's front door sends a student on to the student pages by design.
        const frontDoor = route.key === 'GET /console' && persona === 'student';
        const expected = allows(persona, route.access) && !frontDoor;
        if (expected === refusal)
          failures.push(
            `${persona} on A: ${route.key} -> ${own.statusCode} ${location || codeOf(own.body) || ''}`,
          );
        if (scoped && persona !== 'nobody' && persona !== 'operator') {
          const other = await call(browsers[persona], route.method, route.url, b.slug);
          const missing = await call(browsers[persona], route.method, route.url, 'no-such-institution');
          // Tenancy is decided before the role: B's page is B's absence, whatever the page needs.
          const same = [other, missing].every(
            (response) => response.statusCode === 404 && codeOf(response.body) === 'institution_not_found',
          );
          if (!same)
            failures.push(`${persona} on B: ${route.key} -> ${other.statusCode} ${codeOf(other.body) ?? ''}`);
        }
      }
    }
    assert.deepEqual(failures, []);
  });
});
