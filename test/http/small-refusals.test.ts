// Low findings of the last review, each through the real interface: a plain admin cannot remove a
// Manage integrations holder; a OneRoster source saved again without its secret keeps it (and a
// new token URL needs it again); a forged listing cursor is 400 invalid_cursor whatever it holds.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { encodeCursor } from '../../src/lib/cursor.ts';
import { describeEachDatabase, seedTenant } from '../helpers/app.ts';
import { configureSource, generateRoster, providerPool } from '../helpers/oneroster-provider.ts';
import { operatorBrowser, personBrowser } from '../helpers/people.ts';

const startProvider = providerPool();

describeEachDatabase(
  'small refusals',
  (ctx) => {
    test('only a holder or the operator removes a Manage integrations holder', async () => {
      const tenant = await seedTenant(ctx());
      const plain = await personBrowser(ctx(), tenant, { roles: ['admin'] });
      const holder = await personBrowser(ctx(), tenant, {
        roles: ['admin'],
        permissions: ['manage_integrations'],
      });
      const other = await personBrowser(ctx(), tenant, {
        roles: ['admin'],
        permissions: ['manage_integrations'],
      });
      const staff = await personBrowser(ctx(), tenant, { roles: ['staff'] });
      const people = `/admin/v1/institutions/${tenant.slug}/people`;
      const refused = await plain.request('DELETE', `${people}/${holder.personId}`);
      assert.equal(refused.statusCode, 403, refused.body);
      assert.equal(refused.json().error, 'manage_integrations_required');
      assert.equal((await ctx().admin('GET', `${people}/${holder.personId}`)).statusCode, 200);
      // The console's confirmation step refuses it the same way.
      const page = await ctx().app.inject({
        method: 'POST',
        url: `/console/${tenant.slug}/people/${holder.personId}/remove`,
        headers: { cookie: plain.cookie, 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ _csrf: plain.csrf, confirmed: 'yes' }).toString(),
      });
      assert.equal(page.statusCode, 403);
      // In words; the code only in the Details disclosure.
      assert.match(page.body, /Manage integrations/);
      assert.doesNotMatch(
        page.body.replace(/<details[\s\S]*?<\/details>/g, ''),
        /manage_integrations_required/,
      );
      // A plain admin still removes staff; a holder or the operator removes a holder.
      assert.equal((await plain.request('DELETE', `${people}/${staff.personId}`)).statusCode, 204);
      assert.equal((await other.request('DELETE', `${people}/${holder.personId}`)).statusCode, 204);
      assert.equal((await ctx().admin('DELETE', `${people}/${other.personId}`)).statusCode, 204);
    });

    test('a OneRoster source saved again without its secret keeps it; a new token URL needs it', async () => {
      const tenant = await seedTenant(ctx());
      const provider = await startProvider({ data: generateRoster({ students: 1 }) });
      const first = await configureSource(ctx(), tenant.slug, provider, { cohort_id: tenant.cohortId });
      assert.equal(first.statusCode, 200, first.body);
      const stored = async () =>
        (
          await ctx().db.query<{ s: string }>(
            'SELECT client_secret_encrypted AS s FROM oneroster_sources WHERE institution_id = $1',
            [tenant.institutionId],
          )
        ).rows[0].s;
      const sealed = await stored();
      const again = await configureSource(ctx(), tenant.slug, provider, {
        cohort_id: tenant.cohortId,
        client_secret: undefined,
        pull_every_minutes: 60,
      });
      assert.equal(again.statusCode, 200, again.body);
      assert.equal(again.json().pull_every_minutes, 60);
      assert.equal(await stored(), sealed);
      // The console's form, with the secret left empty, keeps it too.
      const operator = await operatorBrowser(ctx());
      const form = await ctx().app.inject({
        method: 'POST',
        url: `/console/${tenant.slug}/oneroster-source`,
        headers: { cookie: operator.cookie, 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({
          _csrf: operator.csrf,
          base_url: provider.baseUrl,
          token_url: provider.tokenUrl,
          client_id: provider.clientId,
          client_secret: '',
          cohort_id: tenant.cohortId,
          org_ids: '',
          term_types: again.json().term_types.join(', '),
          campus_org_types: again.json().campus_org_types.join(', '),
          programs_from: again.json().programs_from,
          program_org_types: again.json().program_org_types.join(', '),
          student_id: again.json().student_id,
          pull_every_minutes: '',
          full_every_hours: '24',
        }).toString(),
      });
      assert.ok(form.statusCode < 400, `${form.statusCode} ${form.body.slice(0, 500)}`);
      assert.equal(await stored(), sealed);
      const moved = await configureSource(ctx(), tenant.slug, provider, {
        cohort_id: tenant.cohortId,
        client_secret: undefined,
        token_url: `${provider.tokenUrl}?elsewhere=1`,
      });
      assert.equal(moved.statusCode, 400, moved.body);
      assert.deepEqual([moved.json().error, moved.json().field], ['missing_field', 'client_secret']);
    });

    test('property: a forged cursor is 400 invalid_cursor whatever time, offset or number it holds', async () => {
      const tenant = await seedTenant(ctx());
      const base = `/admin/v1/institutions/${tenant.slug}/help-requests`;
      const newest = { listing: 'help-requests', key: ['timestamp', 'uuid'] } as const;
      const crisis = { listing: 'help-requests-crisis-first', key: ['int32', 'timestamp', 'uuid'] } as const;
      const id = '00000000-0000-4000-8000-000000000000';
      // The reported case: an offset PostgreSQL refuses (SQLSTATE 22009).
      const reported = await ctx().admin(
        'GET',
        `${base}?cursor=${encodeCursor(newest, ['2026-01-01T00:00:00+99:00', id])}`,
      );
      assert.equal(reported.statusCode, 400, reported.body);
      assert.equal(reported.json().error, 'invalid_cursor');
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 0, max: 99 }),
          fc.integer({ min: 0, max: 99 }),
          fc.constantFrom('+', '-'),
          fc.oneof(fc.integer(), fc.maxSafeInteger(), fc.constant(2 ** 31), fc.constant(-(2 ** 31) - 1)),
          async (hours, minutes, sign, rank) => {
            const offset = `${sign}${String(hours).padStart(2, '0')}:${String(minutes).padStart(2, '0')}`;
            const time = `2026-03-04T05:06:07${offset}`;
            for (const [url, order] of [
              [`${base}?cursor=${encodeCursor(newest, [time, id])}`, 'newest'],
              [`${base}?order=crisis_first&cursor=${encodeCursor(crisis, [rank, time, id])}`, 'crisis'],
            ]) {
              const response = await ctx().admin('GET', url);
              assert.ok(response.statusCode < 500, `${order} ${time} ${rank}: ${response.body}`);
              if (response.statusCode !== 200)
                assert.equal(response.json().error, 'invalid_cursor', response.body);
            }
          },
        ),
        { numRuns: 60 },
      );
    });
  },
  { config: { allowLoopbackOutbound: true } },
);
