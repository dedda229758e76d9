// The console's lists read exactly what their filters match through the admin API (no page read
// and then narrowed): the inbox's assignment filter and crisis-first order, push history's day
// and error filters, and an endpoint's delivery log paged by cursor.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { recordRun } from '../../src/domain/runs/runs.ts';
import { describeEachDatabase, seedTenant } from '../helpers/app.ts';
import { seedHelpdesk } from '../helpers/helpdesk.ts';
import { personBrowser, postForm } from '../helpers/people.ts';
import { addEndpoint } from '../helpers/webhooks.ts';

describeEachDatabase('console lists', (ctx) => {
  const page = async (cookie: string, url: string) => {
    const res = await ctx().app.inject({ method: 'GET', url, headers: { cookie } });
    assert.equal(res.statusCode, 200, `${url}: ${res.statusCode} ${res.body.slice(0, 300)}`);
    return res.body;
  };

  test('inbox: every open crisis request first, and "assigned to me" finds old requests', async () => {
    const tenant = await seedHelpdesk(ctx());
    const staff = await personBrowser(ctx(), tenant, { roles: ['staff'] });
    // The oldest rows: three open crisis requests and one assigned to the staff member, then 120
    // newer requests, so none of the four is on the first page of a newest-first list.
    await ctx().db.query(
      `INSERT INTO help_requests (institution_id, student_id, priority, summary, assigned_person_id, created_at,
         updated_at)
       SELECT $1, $2, CASE WHEN g <= 3 THEN 'crisis' ELSE 'normal' END,
              CASE WHEN g <= 3 THEN 'Crisis ' || g WHEN g = 4 THEN 'Mine from long ago' ELSE 'Request ' || g END,
              CASE WHEN g = 4 THEN $3::uuid END,
              timestamptz '2026-01-01T00:00:00Z' + g * interval '1 minute',
              timestamptz '2026-01-01T00:00:00Z' + g * interval '1 minute'
       FROM generate_series(1, 124) AS g`,
      [tenant.institutionId, tenant.studentIds[0], staff.personId],
    );
    const inbox = await page(staff.cookie, `/console/${tenant.slug}/inbox`);
    const crisisPanel = inbox.slice(inbox.indexOf('Open crisis requests'), inbox.indexOf('Other requests'));
    for (const n of [1, 2, 3]) assert.match(crisisPanel, new RegExp(`Crisis ${n}<`));
    assert.match(inbox, /Request 124</);
    assert.match(inbox, /Next page/);

    const mine = await page(staff.cookie, `/console/${tenant.slug}/inbox?assigned=me`);
    assert.match(mine, /Mine from long ago/);
    assert.doesNotMatch(mine, /Request 1\d\d</);
    const unassigned = await page(staff.cookie, `/console/${tenant.slug}/inbox?assigned=unassigned`);
    assert.doesNotMatch(unassigned, /Mine from long ago/);
  });

  test('inbox actions are recorded under the signed-in person', async () => {
    const tenant = await seedHelpdesk(ctx());
    const staff = await personBrowser(ctx(), tenant, { roles: ['staff'] });
    const me = (await staff.request('GET', '/admin/v1/me')).json().actor as string;
    const created = await ctx().admin('POST', `/admin/v1/institutions/${tenant.slug}/help-requests`, {
      student_id: tenant.studentIds[0],
    });
    const id = created.json().id;
    const post = await postForm(ctx(), staff, `/console/${tenant.slug}/inbox/${id}/notes`, {
      note: 'Called',
    });
    assert.equal(post.statusCode, 303, post.body);
    const read = await ctx().admin('GET', `/admin/v1/institutions/${tenant.slug}/help-requests/${id}`);
    assert.equal(read.json().timeline.at(-1).actor, me);
  });

  test('push history: the day and error filters reach runs past the newest 500', async () => {
    const tenant = await seedTenant(ctx());
    const admin = await personBrowser(ctx(), tenant, { roles: ['admin'] });
    const run = (startedAt: string, errors: unknown[], received: number) =>
      recordRun(ctx().db, {
        institutionId: tenant.institutionId,
        kind: 'roster',
        credential: 'institution_secret',
        dryRun: false,
        received,
        counts: {},
        errors,
        startedAt: new Date(startedAt),
      });
    await run('2025-06-01T10:00:00Z', [{ row: 1, message: 'bad' }], 4242);
    await ctx().db.query(
      `INSERT INTO sis_runs (institution_id, kind, credential, dry_run, received, counts, started_at)
       SELECT $1, 'roster', 'institution_secret', false, 7, '{}'::jsonb, timestamptz '2026-01-01T00:00:00Z' + g * interval '1 hour'
       FROM generate_series(1, 600) AS g`,
      [tenant.institutionId],
    );
    const day = await page(admin.cookie, `/console/${tenant.slug}/runs?day=2025-06-01`);
    assert.match(day, />4242</);
    const withErrors = await page(admin.cookie, `/console/${tenant.slug}/runs?errors=yes`);
    assert.match(withErrors, />4242</);
    assert.doesNotMatch(withErrors, />7</);
  });

  test('an endpoint’s delivery log pages to older deliveries, each with its attempts', async () => {
    const tenant = await seedTenant(ctx(), { rosterSecret: false });
    const admin = await personBrowser(ctx(), tenant, {
      roles: ['admin'],
      permissions: ['manage_integrations'],
    });
    const endpoint = await addEndpoint(ctx(), tenant, { url: 'https://8.8.8.8/hook' });
    await ctx().db.transaction(async (tx) => {
      await tx.query(
        `INSERT INTO events (institution_id, type, payload, occurred_at)
         SELECT $1, 'help_request.created', '{"type":"help_request.created","timestamp":"","data":{}}'::jsonb,
                timestamptz '2026-04-01T00:00:00Z' + g * interval '1 minute'
         FROM generate_series(1, 60) AS g`,
        [tenant.institutionId],
      );
      await tx.query(
        `UPDATE webhook_deliveries d SET state = 'failed', created_at = ev.occurred_at
         FROM events ev WHERE ev.id = d.event_id AND d.endpoint_id = $1`,
        [endpoint.id],
      );
      // Only the oldest delivery has attempts: a log capped at the newest attempts would miss them.
      await tx.query(
        `INSERT INTO webhook_attempts (institution_id, delivery_id, endpoint_id, event_id, attempted_at, outcome,
                                       status_code, duration_ms)
         SELECT d.institution_id, d.id, d.endpoint_id, d.event_id, d.created_at, 'http_error', 503, 1234
         FROM webhook_deliveries d WHERE d.endpoint_id = $1 ORDER BY d.created_at LIMIT 1`,
        [endpoint.id],
      );
    });
    const url = `/console/${tenant.slug}/webhooks/${endpoint.id}`;
    const first = await page(admin.cookie, url);
    assert.doesNotMatch(first, /1234 ms/);
    const older = /href="([^"]+\?cursor=[^"]+)">Older deliveries/.exec(first);
    assert.ok(older, 'an Older deliveries link');
    const second = await page(admin.cookie, older[1].replaceAll('&amp;', '&'));
    assert.match(second, /503<\/strong>, 1234 ms/);
    assert.doesNotMatch(second, /Older deliveries/);
    assert.match(second, /Newest deliveries/);
  });
});
