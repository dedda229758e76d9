// Every admin endpoint against every role of institution A, on A and on B: allowed where the
// role grants the route's access, 403 where it does not, and 404 on B exactly as for an
// institution that does not exist, so nothing of B leaks. The table below is this test's own
// statement of who may do what; a new admin route fails the test until it is listed.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { describeEachDatabase, seedTenant } from '../helpers/app.ts';
import { type Browser, operatorBrowser, personBrowser, studentBrowser } from '../helpers/people.ts';

type Access = 'self' | 'operator' | 'read' | 'helpdesk' | 'admin' | 'integrations';

const table: [RegExp, Access][] = [
  [/^GET \/admin\/v1\/me$/, 'self'],
  [/^(GET|POST) \/admin\/v1\/institutions$/, 'operator'],
  [
    /^(GET|POST|DELETE|PUT) \/admin\/v1\/(operators|identity-provider|operator-sign-in-links|metrics)/,
    'operator',
  ],
  [/^GET \/admin\/v1\/roster-secrets\/due$/, 'operator'],
  [/^POST .*\/campuses\/merge$/, 'operator'],
  [/^POST \/admin\/v1\/institutions\/\{slug\}\/(archive|restore)$/, 'operator'],
  [/^POST .*\/identity-provider\/confirmation$/, 'operator'],
  [/^(PUT|DELETE) \/admin\/v1\/institutions\/\{slug\}\/identity-provider$/, 'integrations'],
  [/^POST .*\/cohorts\/\{id\}\/(archive|restore)$/, 'admin'],
  [
    /^GET \/admin\/v1\/institutions\/\{slug\}(\/(cohorts|programs|campuses|audience-tags|students|campus-aliases|terms|units|enrolments|calendar-events|students\.csv|crisis-contacts))?$/,
    'read',
  ],
  [/^PATCH \/admin\/v1\/institutions\/\{slug\}$/, 'admin'],
  [/^GET .*\/cohorts\/\{id\}$/, 'read'],
  [/^GET .*\/students\/\{id\}$/, 'read'],
  [/^POST .*\/cohorts$/, 'admin'],
  [/^PATCH .*\/cohorts\/\{id\}$/, 'admin'],
  [/^PUT .*\/crisis-contacts$/, 'admin'],
  [/^(GET|PUT) .*\/me\/notifications$/, 'helpdesk'],
  [/^(GET|PUT) .*\/(notification-recipients|notifications|inbox-settings)$/, 'admin'],
  [
    /\/(roster-secret|people|identity-provider|audit|runs|operator-audit|full-syncs|calendar-feeds|student-exports|erasures?|retention|access-log)(\/|$)/,
    'admin',
  ],
  [/\/help-requests/, 'helpdesk'],
  [/^GET .*\/saved-replies$/, 'helpdesk'],
  [/\/saved-replies/, 'admin'],
  [/\/(help-sync-secret|help-sync-settings|webhook-endpoints|events|oneroster-source)/, 'integrations'],
];

function errorOf(body: string): unknown {
  try {
    return JSON.parse(body)?.error;
  } catch {
    return undefined;
  }
}

function accessOf(route: string): Access {
  const found = table.find(([pattern]) => pattern.test(route));
  if (!found) throw new Error(`the access matrix does not list ${route}`);
  return found[1];
}

type Role = 'admin' | 'staff' | 'manager' | 'student';
const grants: Record<Role, Access[]> = {
  admin: ['self', 'read', 'helpdesk', 'admin'],
  manager: ['self', 'read', 'helpdesk', 'admin', 'integrations'],
  staff: ['self', 'read', 'helpdesk'],
  student: ['self'],
};

describeEachDatabase('access matrix over every admin endpoint', (ctx) => {
  test('each role of A against A and B', async () => {
    const doc = ctx().app.swagger() as { paths: Record<string, Record<string, unknown>> };
    const routes = Object.entries(doc.paths)
      .filter(([path]) => path.startsWith('/admin/'))
      .flatMap(([path, methods]) => Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`));
    assert.ok(routes.length > 60, `found ${routes.length} admin routes`);

    const a = await seedTenant(ctx());
    const b = await seedTenant(ctx());
    const browsers: Record<Role, Browser> = {
      admin: await personBrowser(ctx(), a, { roles: ['admin'] }),
      manager: await personBrowser(ctx(), a, { roles: ['admin'], permissions: ['manage_integrations'] }),
      staff: await personBrowser(ctx(), a, { roles: ['staff'] }),
      student: await studentBrowser(ctx(), a),
    };
    const operator = await operatorBrowser(ctx());

    const call = (browser: Browser, route: string, slug: string) => {
      const [method, template] = route.split(' ') as ['GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', string];
      const url = template.replace('{slug}', slug).replace(/\{[a-zA-Z_]+\}/g, () => randomUUID());
      return browser.request(method, url, method === 'GET' || method === 'DELETE' ? undefined : {});
    };

    const failures: string[] = [];
    for (const route of routes) {
      const access = accessOf(route);
      const scoped = route.includes('{slug}');
      for (const [role, browser] of Object.entries(browsers) as [Role, Browser][]) {
        const own = await call(browser, route, a.slug);
        const allowed = grants[role].includes(access);
        const ownOk = allowed
          ? ![401, 403].includes(own.statusCode) && errorOf(own.body) !== 'institution_not_found'
          : own.statusCode === 403 && own.json().error === 'forbidden';
        if (!ownOk) failures.push(`${role} on A: ${route} -> ${own.statusCode} ${own.body.slice(0, 120)}`);
        if (scoped) {
          const other = await call(browser, route, b.slug);
          const missing = await call(browser, route, 'no-such-institution');
          const same =
            other.statusCode === 404 &&
            other.json().error === 'institution_not_found' &&
            other.body.replace(b.slug, 'X') === missing.body.replace('no-such-institution', 'X');
          if (!same)
            failures.push(`${role} on B: ${route} -> ${other.statusCode} ${other.body.slice(0, 120)}`);
        }
      }
      for (const slug of scoped ? [a.slug, b.slug] : [a.slug]) {
        const res = await call(operator, route, slug);
        if ([401, 403].includes(res.statusCode) || errorOf(res.body) === 'institution_not_found') {
          failures.push(`operator session: ${route} -> ${res.statusCode} ${res.body.slice(0, 120)}`);
        }
      }
    }
    assert.deepEqual(failures, []);
  });

  test('without credentials every admin endpoint is 401', async () => {
    const doc = ctx().app.swagger() as { paths: Record<string, Record<string, unknown>> };
    const tenant = await seedTenant(ctx());
    for (const [path, methods] of Object.entries(doc.paths).filter(([p]) => p.startsWith('/admin/'))) {
      for (const method of Object.keys(methods)) {
        const url = path.replace('{slug}', tenant.slug).replace(/\{[a-zA-Z_]+\}/g, () => randomUUID());
        const res = await ctx().request({ method: method.toUpperCase() as 'GET', url });
        assert.equal(res.statusCode, 401, `${method} ${path}`);
      }
    }
  });
});
