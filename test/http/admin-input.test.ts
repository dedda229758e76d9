import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { describeEachDatabase } from '../helpers/app.ts';
import { createHelpRequest, type HelpdeskTenant, seedHelpdesk } from '../helpers/helpdesk.ts';

// Ordinary bad input to the admin API is refused at the edge with a 4xx naming the field,
// never a 5xx, and never reaches the database.
// The suites below share one app per database: every test that writes does so in an institution
// of its own.
describeEachDatabase('admin API input', (ctx) => {
  describe('admin API: text the database cannot store is refused at the edge', () => {
    const refused = (res: { statusCode: number; body: string }, field: string) => {
      assert.equal(res.statusCode, 400, res.body);
      const body = JSON.parse(res.body);
      assert.deepEqual([body.error, body.field], ['invalid_field', field], res.body);
      // A name field's own check (control and format characters, docs/display-names.md) may answer first.
      if (field !== 'after_seq') assert.match(body.detail, /NUL character|control or invisible/);
    };

    test('NUL and lone surrogates in help-request bodies and listing filters: 400 invalid_field', async () => {
      const tenant = await seedHelpdesk(ctx());
      const request = await createHelpRequest(ctx(), tenant);
      const base = `/admin/v1/institutions/${tenant.slug}/help-requests`;
      const one = `${base}/${request.id}`;
      const student = tenant.studentIds[0];
      for (const bad of ['a\u0000b', 'x\ud800', '\udfff']) {
        refused(await ctx().admin('POST', base, { student_id: student, summary: bad }), 'summary');
        refused(await ctx().admin('POST', base, { student_id: student, actor: bad }), 'actor');
        refused(await ctx().admin('POST', `${one}/notes`, { note: bad, staff: 'Dana' }), 'note');
        refused(await ctx().admin('POST', `${one}/notes`, { note: 'n', staff: bad }), 'staff');
        refused(await ctx().admin('POST', `${one}/status`, { status: 'ack', staff: bad }), 'staff');
        refused(await ctx().admin('PUT', `${one}/assignment`, { assignee: bad, staff: 'Dana' }), 'assignee');
        refused(
          await ctx().admin('POST', `/admin/v1/institutions/${tenant.slug}/campuses/merge`, {
            from: bad,
            into: 'North',
          }),
          'from',
        );
        refused(
          await ctx().admin('POST', `/admin/v1/institutions/${tenant.slug}/campuses/merge`, {
            from: 'North',
            into: 'South',
            actor: bad,
          }),
          'actor',
        );
      }
      refused(
        await ctx().admin('GET', `/admin/v1/institutions/${tenant.slug}/students?email=a%00b`),
        'email',
      );
      refused(
        await ctx().admin('GET', `/admin/v1/institutions/${tenant.slug}/units?program_code=%00`),
        'program_code',
      );
      refused(
        await ctx().admin('GET', `/admin/v1/institutions/${tenant.slug}/enrolments?unit_code=u%00`),
        'unit_code',
      );
      // Well-formed text, astral characters included, is accepted.
      const fine = await ctx().admin('POST', `${one}/notes`, {
        note: 'ok \u{1F600}',
        staff: 'Dana \u{1F600}',
      });
      assert.equal(fine.statusCode, 200, fine.body);
    });

    test('after_seq beyond the largest safe integer: 400 invalid_field', async () => {
      const tenant = await seedHelpdesk(ctx());
      const events = `/admin/v1/institutions/${tenant.slug}/events`;
      refused(await ctx().admin('GET', `${events}?after_seq=99999999999999999999`), 'after_seq');
      refused(await ctx().admin('GET', `${events}?after_seq=9007199254740992`), 'after_seq');
      const max = await ctx().admin('GET', `${events}?after_seq=9007199254740991`);
      assert.equal(max.statusCode, 200, max.body);
      assert.deepEqual(max.json().items, []);
    });
  });

  describe('admin help-request endpoints: no input yields a 5xx (property-based)', () => {
    let tenant: HelpdeskTenant;
    let id = '';

    test('setup', async () => {
      tenant = await seedHelpdesk(ctx());
      id = (await createHelpRequest(ctx(), tenant)).id;
    });

    // Full-Unicode strings (lone surrogates included) and NUL, beside values of other types.
    const text = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 20 }),
      fc.constantFrom('\u0000', 'a\u0000', '\ud800', 'x\udc00y', ''),
      fc.string({ unit: 'binary', minLength: 195, maxLength: 210 }),
    );
    const value = fc.oneof(
      text,
      fc.constant(null),
      fc.boolean(),
      fc.integer(),
      fc.double(),
      fc.uuid(),
      fc.constantFrom('new', 'ack', 'in_progress', 'resolved', 'crisis', 'low'),
      fc.array(text, { maxLength: 2 }),
    );
    const body = (keys: string[]) =>
      fc.dictionary(fc.constantFrom(...keys), value, { maxKeys: keys.length }).map((d) => ({ ...d }));
    const query = fc.dictionary(
      fc.constantFrom('status', 'priority', 'student_id', 'limit', 'cursor', 'after_seq', 'x'),
      fc.oneof(text, fc.integer().map(String), fc.constant('99999999999999999999999')),
      { maxKeys: 4 },
    );

    const noServerError = (res: { statusCode: number; body: string }) => {
      assert.ok(res.statusCode < 500, `${res.statusCode} ${res.body}`);
      if (res.statusCode >= 400) assert.equal(typeof JSON.parse(res.body).error, 'string', res.body);
    };

    test('bodies of any shape with any text', async () => {
      const base = () => `/admin/v1/institutions/${tenant.slug}/help-requests`;
      const endpoints = [
        { method: 'POST' as const, url: () => base(), keys: ['student_id', 'priority', 'summary', 'actor'] },
        { method: 'POST' as const, url: () => `${base()}/${id}/status`, keys: ['status', 'staff'] },
        { method: 'POST' as const, url: () => `${base()}/${id}/notes`, keys: ['note', 'staff'] },
        { method: 'PUT' as const, url: () => `${base()}/${id}/assignment`, keys: ['assignee', 'staff'] },
      ];
      await fc.assert(
        fc.asyncProperty(
          fc
            .constantFrom(...endpoints.keys())
            .chain((i) => fc.tuple(fc.constant(endpoints[i]), body(endpoints[i].keys))),
          fc.boolean(),
          async ([endpoint, payload], withStudent) => {
            if (withStudent && endpoint.keys.includes('student_id'))
              payload.student_id = tenant.studentIds[0];
            noServerError(await ctx().admin(endpoint.method, endpoint.url(), payload));
          },
        ),
        { numRuns: 60 },
      );
    });

    test('listing and event queries with any text', async () => {
      await fc.assert(
        fc.asyncProperty(query, fc.boolean(), async (params, events) => {
          const qs = Object.entries(params)
            .map(
              ([k, v]) => `${k}=${encodeURIComponent(v.toWellFormed()).replaceAll('%EF%BF%BD', '%ED%A0%80')}`,
            )
            .join('&');
          const path = events ? 'events' : 'help-requests';
          noServerError(await ctx().admin('GET', `/admin/v1/institutions/${tenant.slug}/${path}?${qs}`));
        }),
        { numRuns: 40 },
      );
    });
  });
});
