// Forms that speak people's language: a value longer than allowed is refused in a sentence next
// to its field (the value typed kept, nothing created), every field's problem shows at once, and
// no schema path (`params.id`, `querystring.q`, `must match format`) reaches a page whatever is
// posted to any form or put in any page's address (fast-check).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { describeEachDatabase, type SeededTenant, seedTenant, type TestContext } from '../helpers/app.ts';
import { operatorBrowser, personBrowser, postForm } from '../helpers/people.ts';
import { addEndpoint } from '../helpers/webhooks.ts';

/** What a schema path or a validator's wording looks like on a page. */
const schemaSpeak =
  /must match|must NOT|must be equal to|must have required|\b(?:querystring|body|params|headers)\.\w/;

const count = async (ctx: TestContext, sql: string, params: unknown[]) =>
  Number((await ctx.db.query<{ n: string }>(`SELECT count(*) AS n FROM ${sql}`, params)).rows[0].n);

describeEachDatabase(
  'forms speak people’s language',
  (ctx) => {
    test('a slug longer than allowed is refused next to the field, kept as typed, nothing created', async () => {
      const operator = await operatorBrowser(ctx());
      const slug = `a${'b'.repeat(69)}`;
      const before = await count(ctx(), 'institutions', []);
      const res = await postForm(ctx(), operator, '/console/', [
        ['name', ''],
        ['slug', slug],
        ['time_zone', 'UTC'],
      ]);
      assert.equal(res.statusCode, 400);
      assert.match(res.body, /id="slug-error">Slug must be 63 characters or fewer</);
      assert.match(res.body, /id="name-error">Enter a name</, 'every field at once');
      assert.match(res.body, new RegExp(`id="slug" name="slug" value="${slug}"`));
      assert.doesNotMatch(res.body, /maxlength/);
      assert.equal(await count(ctx(), 'institutions', []), before, 'nothing created');
    });

    test('a cohort name longer than allowed and a bad start date: both refused at once', async () => {
      const tenant = await seedTenant(ctx(), { rosterSecret: false });
      const admin = await personBrowser(ctx(), tenant, { roles: ['admin'] });
      const name = 'N'.repeat(250);
      const res = await postForm(ctx(), admin, `/console/${tenant.slug}/cohorts`, [
        ['name', name],
        ['clock', 'cohort'],
        ['start_date', '2026-13-45'],
      ]);
      assert.equal(res.statusCode, 400);
      assert.match(res.body, /Name must be 200 characters or fewer/);
      assert.match(res.body, /start-error">[^<]+/);
      assert.match(res.body, new RegExp(`value="${name}"`));
      assert.doesNotMatch(res.body, /maxlength/);
      assert.equal(await count(ctx(), 'cohorts WHERE institution_id = $1', [tenant.institutionId]), 1);
    });

    test('webhooks and the OneRoster source: two bad fields, two messages', async () => {
      const tenant = await seedTenant(ctx(), { rosterSecret: false });
      const manager = await personBrowser(ctx(), tenant, {
        roles: ['admin'],
        permissions: ['manage_integrations'],
      });
      const hook = await postForm(ctx(), manager, `/console/${tenant.slug}/webhooks`, [
        ['url', ''],
        ['description', 'd'.repeat(600)],
      ]);
      assert.equal(hook.statusCode, 400);
      assert.match(hook.body, /id="endpoint-url-error">Enter the URL that receives the events</);
      assert.match(hook.body, /id="endpoint-description-error">Description must be \d+ characters or fewer/);

      const source = await postForm(ctx(), manager, `/console/${tenant.slug}/oneroster-source`, [
        ['base_url', ''],
        ['token_url', 'https://sso.example.edu/token'],
        ['client_id', 'ssp'],
        ['client_secret', 'secret'],
        ['cohort_id', tenant.cohortId],
        ['full_every_hours', '0'],
        ['pull_every_minutes', 'often'],
      ]);
      assert.equal(source.statusCode, 400);
      assert.match(source.body, /id="or-base_url-error">Enter a base URL</);
      assert.match(
        source.body,
        /id="or-full_every_hours-error">Full pull every \(hours\) must be 1 or more</,
      );
      assert.match(source.body, /id="or-pull_every_minutes-error">Enter a whole number of minutes/);
      assert.doesNotMatch(source.body, schemaSpeak);
    });

    test('the sign-in search: a long one is refused in a sentence, not cut', async () => {
      const q = 'q'.repeat(300);
      const res = await ctx().app.inject({ method: 'GET', url: `/auth/sign-in?q=${q}` });
      assert.equal(res.statusCode, 400);
      assert.match(res.body, /id="q-error">Institution or email must be 200 characters or fewer</);
      assert.match(res.body, new RegExp(`value="${q}"`));
      assert.doesNotMatch(res.body, schemaSpeak);
    });

    test('the people page shows the full redirect URI to register, with a copy button', async () => {
      const tenant = await seedTenant(ctx(), { rosterSecret: false });
      const admin = await personBrowser(ctx(), tenant, { roles: ['admin'] });
      const res = await admin.request('GET', `/console/${tenant.slug}/people`);
      const uri = `${ctx().deps.config.publicBaseUrl}/auth/callback`;
      assert.match(res.body, new RegExp(`id="idp-redirect-uri" class="secret" value="${uri}" readonly`));
      assert.match(res.body, /data-copy="idp-redirect-uri" hidden>Copy the redirect URI/);
    });

    test('no schema path reaches a page, whatever is posted or asked for (property)', async () => {
      const tenant: SeededTenant = await seedTenant(ctx());
      const admin = await personBrowser(ctx(), tenant, {
        roles: ['admin', 'staff'],
        permissions: ['manage_integrations'],
      });
      const endpoint = await addEndpoint(ctx(), tenant, { url: 'http://127.0.0.1:9/hook' });
      const { personId } = await personBrowser(ctx(), tenant, { roles: ['staff'] });
      const at = `/console/${tenant.slug}`;
      const id = fc.constantFrom('not-a-uuid', '00000000-0000-4000-8000-000000000000', 'x'.repeat(300));
      const posts: fc.Arbitrary<string>[] = [
        fc.constant('/console/'),
        ...[
          'cohorts',
          'time-zone',
          `cohorts/${tenant.cohortId}`,
          'crisis-contacts',
          'calendar-feeds',
          'campuses/merge',
          'people',
          'identity-provider',
          `people/${personId}`,
          'webhooks',
          `webhooks/${endpoint.id}/event-types`,
          `webhooks/${endpoint.id}/enabled`,
          `webhooks/${endpoint.id}/redeliver`,
          `webhooks/${endpoint.id}/replay`,
          'notifications',
          'me/notifications',
          'response-targets',
          'oneroster-source',
          'oneroster-source/sync',
        ].map((path) => fc.constant(`${at}/${path}`)),
        id.map((x) => `${at}/cohorts/${x}`),
        id.map((x) => `${at}/calendar-feeds/${x}`),
        id.map((x) => `${at}/people/${x}`),
        id.map((x) => `${at}/webhooks/${x}/event-types`),
        id.map((x) => `${at}/inbox/${x}/status`),
        id.map((x) => `${at}/inbox/${x}/notes`),
        id.map((x) => `${at}/inbox/${x}/assignment`),
        id.map((x) => `${at}/full-syncs/${x}/confirm`),
      ];
      const names = [
        'name',
        'slug',
        'time_zone',
        'clock',
        'start_date',
        'url',
        'description',
        'event_types',
        'enabled',
        'refresh_minutes',
        'audience_tags',
        'email',
        'roles',
        'permissions',
        'issuer',
        'client_id',
        'client_secret',
        'email_domains',
        'rows',
        'name_0',
        'phone_0',
        'url_0',
        'from',
        'into',
        'since',
        'event_id',
        'status',
        'note',
        'assignee_id',
        'crisis',
        'base_url',
        'token_url',
        'cohort_id',
        'org_ids',
        'pull_every_minutes',
        'full_every_hours',
        'programs_from',
        'student_id',
        'mode',
      ];
      const junk = fc.oneof(
        fc.string({ maxLength: 20 }),
        fc.string({ unit: 'grapheme', maxLength: 20 }),
        fc.constantFrom('', ' ', '-1', '1e309', 'NaN', '2026-02-30', 'javascript:alert(1)', 'x'.repeat(5000)),
      );
      const form = fc.array(fc.tuple(fc.constantFrom(...names), junk), { maxLength: 8 });
      const statuses = new Set<number>();
      await fc.assert(
        fc.asyncProperty(fc.oneof(...posts), form, async (url, fields) => {
          const res = await postForm(ctx(), admin, url, fields);
          statuses.add(res.statusCode);
          assert.ok(res.statusCode < 500, `${url}: ${res.statusCode}`);
          assert.doesNotMatch(res.body, schemaSpeak, `${url} ${JSON.stringify(fields).slice(0, 300)}`);
        }),
        { numRuns: 60 },
      );

      assert.ok(statuses.has(400) && statuses.has(404), `refused and not found: ${[...statuses]}`);

      const pages = [
        'inbox',
        'students',
        'runs',
        'audit',
        'units',
        'enrolments',
        'terms',
        'campuses',
        'calendar-feeds',
        'webhooks',
        'people',
        'cohorts',
        'notifications',
        'inbox',
        'inbox/rows',
      ].map((path) => `${at}/${path}`);
      const query = fc.array(
        fc.tuple(
          fc.constantFrom(
            'q',
            'status',
            'priority',
            'cursor',
            'from',
            'to',
            'person',
            'program',
            'campus',
            'day',
            'feed',
            'with_errors',
            'term_code',
            'unit_code',
            'email',
            'assigned',
            'category',
          ),
          junk,
        ),
        { minLength: 1, maxLength: 4 },
      );
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...pages), query, async (path, params) => {
          const url = `${path}?${new URLSearchParams(params).toString()}`;
          const res = await admin.request('GET', url);
          assert.ok(res.statusCode < 500, `${url}: ${res.statusCode}`);
          assert.doesNotMatch(res.body, schemaSpeak, url.slice(0, 300));
        }),
        { numRuns: 60 },
      );
    });
  },
  { config: { allowLoopbackOutbound: true } },
);
