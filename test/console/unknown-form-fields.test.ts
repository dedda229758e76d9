// Every console form refuses a field it does not know (a misspelt name is never dropped
// silently): the console's error page, 400, the field named in words with the closest known one,
// the code only under Details. The same form posted with only its own fields is not refused.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { describeEachDatabase, seedTenant } from '../helpers/app.ts';
import { personBrowser, postForm } from '../helpers/people.ts';
import { addEndpoint } from '../helpers/webhooks.ts';

const refusal = /This form had a field the service does not know/;

describeEachDatabase(
  'console forms refuse unknown fields',
  (ctx) => {
    test('a misspelt field is the error page with a suggestion; the code only under Details', async () => {
      const tenant = await seedTenant(ctx(), { rosterSecret: false });
      const admin = await personBrowser(ctx(), tenant, { roles: ['admin'] });
      const before = await ctx().db.query('SELECT count(*) AS n FROM cohorts');
      const res = await postForm(ctx(), admin, `/console/${tenant.slug}/cohorts`, [
        ['nme', 'Autumn'],
        ['clock', 'cohort'],
        ['start_date', '2026-03-02'],
      ]);
      assert.equal(res.statusCode, 400);
      assert.match(res.body, /This form had a field the service does not know: nme \(did you mean name\?\)/);
      const details = res.body.indexOf('<details');
      assert.ok(details > 0 && res.body.indexOf('unknown_field') > details, 'the code only in Details');
      const after = await ctx().db.query('SELECT count(*) AS n FROM cohorts');
      assert.deepEqual(after.rows, before.rows, 'nothing created');
    });

    test('every form: an extra field is refused, its own fields are not (fast-check)', async () => {
      const tenant = await seedTenant(ctx(), { rosterSecret: false });
      const admin = await personBrowser(ctx(), tenant, {
        roles: ['admin', 'staff'],
        permissions: ['manage_integrations'],
      });
      const endpoint = await addEndpoint(ctx(), tenant, { url: 'http://127.0.0.1:9/hook' });
      const { personId } = await personBrowser(ctx(), tenant, { roles: ['staff'] });
      const none = '00000000-0000-4000-8000-000000000000';
      const at = `/console/${tenant.slug}`;
      // Each form of an institution's admin with the fields its page posts (the operator's forms
      // are refused to an admin before their fields are read).
      const forms: [string, string[]][] = [
        [`${at}/cohorts`, ['name', 'start_date', 'clock']],
        [`${at}/time-zone`, ['time_zone']],
        [`${at}/cohorts/${tenant.cohortId}`, ['name', 'start_date', 'clock']],
        [`${at}/cohorts/${tenant.cohortId}/archive`, ['confirmed']],
        [
          `${at}/crisis-contacts`,
          ['rows', 'add', 'name_0', 'phone_0', 'url_0', 'hours_0', 'remove_0', 'saved_0'],
        ],
        [`${at}/calendar-feeds`, ['name', 'url', 'refresh_minutes', 'audience_tags']],
        [`${at}/people`, ['email', 'name', 'roles', 'permissions']],
        [`${at}/identity-provider`, ['issuer', 'client_id', 'client_secret', 'email_domains']],
        [`${at}/people/${personId}`, ['name', 'roles', 'permissions']],
        [`${at}/people/${personId}/sessions`, ['confirmed']],
        [`${at}/webhooks`, ['url', 'description', 'event_types']],
        [`${at}/webhooks/${endpoint.id}/event-types`, ['event_types']],
        [`${at}/webhooks/${endpoint.id}/enabled`, ['enabled']],
        [`${at}/webhooks/${endpoint.id}/redeliver`, ['event_id']],
        [`${at}/webhooks/${endpoint.id}/replay`, ['since', 'confirmed']],
        [`${at}/webhooks/${endpoint.id}/rotate`, ['confirmed']],
        [`${at}/notifications`, ['crisis']],
        [`${at}/me/notifications`, ['any_new_request', 'assigned_to_me']],
        [`${at}/response-targets`, ['target_crisis', 'escalation_minutes', 'escalation']],
        [`${at}/saved-replies`, ['name', 'body']],
        [`${at}/secrets/roster`, ['previous_secret_valid_days', 'confirmed']],
        [`${at}/secrets/help-sync/replies`, ['public_replies']],
        [`${at}/oneroster-source`, ['base_url', 'token_url', 'client_id', 'client_secret', 'cohort_id']],
        [`${at}/oneroster-source/sync`, ['mode']],
        [`${at}/privacy`, []],
        [`${at}/erasures`, ['student_id', 'confirmed']],
        [`${at}/inbox/${none}/status`, ['status']],
        [`${at}/inbox/${none}/notes`, ['note']],
        [`${at}/inbox/${none}/assignment`, ['assignee_id', 'to_me', 'unassign']],
        [`${at}/inbox/${none}/reply`, ['text', '_idempotency_key']],
        [`${at}/full-syncs/${none}/confirm`, ['confirmed']],
      ];
      const own = new Set(forms.flatMap(([, fields]) => fields));
      const extra = fc
        .stringMatching(/^[a-z][a-z0-9_]{0,30}$/)
        .filter(
          (name) => !own.has(name) && !/^(name|phone|url|hours|description|remove|saved)_\d+$/.test(name),
        )
        .filter((name) => !/^[a-z_]+_days$/.test(name));
      const value = fc.string({ maxLength: 12 });
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...forms), extra, value, async ([url, fields], name, typed) => {
          const filled = fields.map((field): [string, string] => [field, '']);
          const refused = await postForm(ctx(), admin, url, [...filled, [name, typed]]);
          assert.equal(refused.statusCode, 400, `${url} ${name}`);
          assert.match(refused.body, refusal, `${url} ${name}`);
          assert.ok(refused.body.includes(name), `${url} names ${name}`);
          const accepted = await postForm(ctx(), admin, url, filled);
          assert.ok(accepted.statusCode < 500, `${url}: ${accepted.statusCode}`);
          assert.doesNotMatch(accepted.body, refusal, `${url} with its own fields`);
        }),
        { numRuns: 80 },
      );
    });
  },
  { config: { allowLoopbackOutbound: true } },
);
