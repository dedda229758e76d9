// No silent contract breaks on the admin API: an unknown body field is refused with the feeds'
// suggestion on every route (a global rule, checked here over every route of the OpenAPI
// document), a wrong method is 405 with Allow, `field` is the bare field name wherever the field
// was sent, and a malformed console address answers the console's not-found page.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import fc from 'fast-check';
import { describeEachDatabase, seedTenant } from '../helpers/app.ts';
import { operatorBrowser } from '../helpers/people.ts';

interface Operation {
  requestBody?: { content?: Record<string, { schema?: { properties?: Record<string, unknown> } }> };
}

describeEachDatabase('the admin API refuses what it does not understand', (ctx) => {
  test('a misspelt field is refused with a suggestion, and nothing is created or changed', async () => {
    const tenant = await seedTenant(ctx());
    const base = `/admin/v1/institutions/${tenant.slug}`;
    const typo = await ctx().admin('POST', `${base}/help-requests`, {
      student_email: 'someone@example.edu',
      prority: 'crisis',
    });
    assert.equal(typo.statusCode, 400, typo.body);
    assert.deepEqual(
      [typo.json().error, typo.json().field, typo.json().suggestion],
      ['unknown_field', 'prority', 'priority'],
    );
    assert.match(typo.json().detail, /did you mean priority\?/);
    const list = await ctx().admin('GET', `${base}/help-requests`);
    assert.deepEqual(list.json().items, []);

    const zone = await ctx().admin('PATCH', base, { timezone: 'Europe/Paris' });
    assert.equal(zone.statusCode, 400, zone.body);
    assert.deepEqual([zone.json().error, zone.json().suggestion], ['unknown_field', 'time_zone']);
    assert.equal((await ctx().admin('GET', base)).json().time_zone, 'UTC');

    // A session's CSRF token may travel as a field.
    const operator = await operatorBrowser(ctx());
    const withToken = await operator.request('PATCH', base, { _csrf: operator.csrf, time_zone: 'UTC' });
    assert.equal(withToken.statusCode, 200, withToken.body);
  });

  test('property: every admin route with a body refuses any unknown field, naming it', async () => {
    const tenant = await seedTenant(ctx());
    const doc = ctx().app.swagger() as { paths: Record<string, Record<string, Operation>> };
    const routes = Object.entries(doc.paths)
      .filter(([path]) => path.startsWith('/admin/'))
      .flatMap(([path, methods]) =>
        Object.entries(methods)
          .filter(([, op]) => op.requestBody?.content?.['application/json']?.schema)
          .map(([method, op]) => ({
            method: method.toUpperCase() as 'POST' | 'PUT' | 'PATCH',
            url: path.replace('{slug}', tenant.slug).replace(/\{[a-z_]+\}/g, () => randomUUID()),
            known: Object.keys(op.requestBody?.content?.['application/json']?.schema?.properties ?? {}),
          })),
      );
    assert.ok(routes.length > 25, `found ${routes.length} routes with a body`);
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...routes),
        fc.string({ minLength: 1, maxLength: 30 }),
        async (route, name) => {
          fc.pre(!route.known.includes(name) && !['_csrf', '__proto__', 'constructor'].includes(name));
          const response = await ctx().admin(route.method, route.url, { [name]: 1 });
          assert.equal(response.statusCode, 400, `${route.method} ${route.url} ${response.body}`);
          assert.equal(response.json().error, 'unknown_field');
          assert.equal(response.json().field, name);
        },
      ),
      { numRuns: 150 },
    );
  });

  test('a wrong method is 405 with Allow; an unknown path stays 404', async () => {
    const tenant = await seedTenant(ctx());
    const put = await ctx().admin('PUT', `/admin/v1/institutions/${tenant.slug}`, {});
    assert.equal(put.statusCode, 405, put.body);
    assert.equal(put.json().error, 'method_not_allowed');
    assert.equal(put.headers.allow, 'GET, HEAD, PATCH');
    const del = await ctx().admin('DELETE', '/admin/v1/institutions');
    assert.equal(del.statusCode, 405);
    assert.equal(del.headers.allow, 'GET, HEAD, POST');
    assert.equal((await ctx().admin('GET', '/admin/v1/nothing-here')).statusCode, 404);

    const operator = await operatorBrowser(ctx());
    const page = await operator.request('DELETE', `/console/${tenant.slug}/people`);
    assert.equal(page.statusCode, 405);
    assert.match(page.headers['content-type'] as string, /text\/html/);
    assert.equal(page.headers.allow, 'GET, HEAD, POST');
  });

  test('the OpenAPI document names Idempotency-Key and the rate-limit fields where they apply', async () => {
    const doc = ctx().app.swagger() as unknown as {
      paths: Record<
        string,
        Record<
          string,
          {
            parameters?: { name: string; in: string }[];
            responses: Record<string, { headers?: Record<string, unknown> }>;
          }
        >
      >;
    };
    const creating = Object.values(doc.paths).flatMap((methods) =>
      methods.post?.responses['201'] ? [methods.post] : [],
    );
    assert.ok(creating.length > 8);
    for (const op of creating) {
      assert.ok(op.parameters?.some((p) => p.in === 'header' && p.name === 'Idempotency-Key'));
      assert.ok(op.responses['201'].headers?.['Idempotent-Replayed']);
    }
    for (const feed of ['/api/sis/sync', '/api/sis/enrolments', '/api/integrations/help-sync']) {
      const responses = doc.paths[feed].post.responses;
      assert.ok(responses['200'].headers?.RateLimit && responses['200'].headers['RateLimit-Policy'], feed);
      assert.ok(responses['429'].headers?.['Retry-After'], feed);
    }
  });

  test('a field is named by its name wherever it was sent', async () => {
    const tenant = await seedTenant(ctx());
    const base = `/admin/v1/institutions/${tenant.slug}`;
    const limit = await ctx().admin('GET', `${base}/students?limit=lots`);
    assert.deepEqual([limit.json().error, limit.json().field], ['invalid_field', 'limit']);
    const offset = await ctx().admin('GET', `${base}/students?offset=1`);
    assert.deepEqual([offset.json().error, offset.json().field], ['unknown_parameter', 'offset']);
    const id = await ctx().admin('GET', `${base}/students/not-an-id`);
    assert.deepEqual([id.json().error, id.json().field], ['invalid_field', 'id']);
  });

  test('a malformed console address answers the console not-found page; the API keeps its 400', async () => {
    const operator = await operatorBrowser(ctx());
    const page = await operator.request('GET', '/console/%E0%A4%A/people');
    assert.equal(page.statusCode, 404);
    assert.match(page.headers['content-type'] as string, /text\/html/);
    assert.match(page.body, /There is no page at this address/);
    const api = await ctx().admin('GET', '/admin/v1/institutions/%E0%A4%A');
    assert.equal(api.statusCode, 400);
    assert.equal(api.json().error, 'invalid_request');
  });
});
