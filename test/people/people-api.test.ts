// People, roles and sessions through the admin API: invitations, role changes taking effect at
// once, removal and ended sessions, CSRF on cookie writes, and feed secrets and sessions never
// crossing.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { authenticateSession, startSession } from '../../src/domain/people/sessions.ts';
import { describeEachDatabase, seedTenant } from '../helpers/app.ts';
import {
  browserWith,
  invitePerson,
  operatorBrowser,
  personBrowser,
  studentBrowser,
} from '../helpers/people.ts';

describeEachDatabase('people and sessions', (ctx) => {
  test('a change the API answered as done is already in the audit when the answer arrives', async () => {
    const tenant = await seedTenant(ctx());
    const admin = await personBrowser(ctx(), tenant, { roles: ['admin'] });
    // Over a real socket, as a client sees it: the answer's last byte, then the audit.
    if (!ctx().app.server.listening) await ctx().app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = ctx().app.server.address() as AddressInfo;
    const url = `http://127.0.0.1:${port}/admin/v1/institutions/${tenant.slug}/people`;
    for (let i = 0; i < 5; i++) {
      const invited = await fetch(url, {
        method: 'POST',
        headers: { cookie: admin.cookie, 'x-csrf-token': admin.csrf, 'content-type': 'application/json' },
        body: JSON.stringify({ email: `audited-${i}@example.edu`, name: `Audited ${i}`, roles: ['staff'] }),
      });
      assert.equal(invited.status, 201, await invited.text());
      const { rows } = await ctx().db.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM admin_audit WHERE request_id = $1',
        [invited.headers.get('x-request-id')],
      );
      assert.equal(rows[0].n, 1, `the audit entry of invitation ${i}`);
    }
    if (ctx().kind !== 'postgres') return;
    // While the audit cannot be written (another transaction holds its table), the answer waits.
    await ctx().db.transaction(async (tx) => {
      await tx.query('LOCK TABLE admin_audit IN EXCLUSIVE MODE');
      const answer = fetch(url, {
        method: 'POST',
        headers: { cookie: admin.cookie, 'x-csrf-token': admin.csrf, 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'held@example.edu', name: 'Held', roles: ['staff'] }),
      });
      const first = await Promise.race([answer.then(() => 'answer'), delay(500).then(() => 'waited')]);
      assert.equal(first, 'waited', 'no answer before its audit entry');
      void answer.catch(() => {});
    });
  });

  test('an admin invites, lists, changes and removes people; the audit names who did it and in which session', async () => {
    const tenant = await seedTenant(ctx());
    const admin = await personBrowser(ctx(), tenant, { roles: ['admin'] });
    const base = `/admin/v1/institutions/${tenant.slug}/people`;
    const invited = await admin.request('POST', base, {
      email: 'Staff.Member@Example.edu',
      name: 'Staff Member',
      roles: ['staff'],
    });
    assert.equal(invited.statusCode, 201, invited.body);
    const person = invited.json();
    assert.deepEqual([person.roles, person.permissions, person.linked], [['staff'], [], false]);

    const again = await admin.request('POST', base, {
      email: 'staff.member@example.EDU',
      name: 'X',
      roles: ['staff'],
    });
    assert.equal(again.statusCode, 409);
    const badGrant = await admin.request('POST', base, {
      email: 'x@example.edu',
      name: 'X',
      roles: ['staff'],
      permissions: ['manage_integrations'],
    });
    assert.equal(badGrant.statusCode, 400);
    assert.equal(badGrant.json().field, 'permissions');
    const badRole = await admin.request('POST', base, {
      email: 'y@example.edu',
      name: 'Y',
      roles: ['owner'],
    });
    assert.equal(badRole.statusCode, 400);

    const listed = (await admin.request('GET', base)).json().items.map((p: { email: string }) => p.email);
    assert.ok(listed.includes('Staff.Member@Example.edu'));

    const promoted = await admin.request('PATCH', `${base}/${person.id}`, { roles: ['admin', 'staff'] });
    assert.equal(promoted.statusCode, 200, promoted.body);
    assert.deepEqual(promoted.json().roles, ['admin', 'staff']);

    assert.equal((await admin.request('DELETE', `${base}/${person.id}`)).statusCode, 204);
    assert.equal((await admin.request('GET', `${base}/${person.id}`)).statusCode, 404);

    const audit = (await ctx().admin('GET', `/admin/v1/institutions/${tenant.slug}/audit`)).json().items;
    const mine = audit.filter((entry: { session_id: string | null }) => entry.session_id !== null);
    assert.deepEqual(mine.map((e: { action: string }) => e.action).sort(), [
      'DELETE /admin/v1/institutions/:slug/people/:id',
      'PATCH /admin/v1/institutions/:slug/people/:id',
      'POST /admin/v1/institutions/:slug/people',
    ]);
    for (const entry of mine) {
      assert.equal(entry.actor_kind, 'person');
      assert.equal(entry.actor_id, admin.personId);
    }
    // Refused requests leave no entry; the operator's token is named as such.
    assert.ok(audit.some((e: { actor_kind: string }) => e.actor_kind === 'operator'));
    assert.ok(!audit.some((e: { status: number }) => e.status >= 400));
  });

  test('a removed role, a removed person and ended sessions take effect on the next request', async () => {
    const tenant = await seedTenant(ctx());
    const manager = await personBrowser(ctx(), tenant, {
      roles: ['admin'],
      permissions: ['manage_integrations'],
    });
    const hooks = `/admin/v1/institutions/${tenant.slug}/webhook-endpoints`;
    assert.equal((await manager.request('GET', hooks)).statusCode, 200);
    await ctx().admin('PATCH', `/admin/v1/institutions/${tenant.slug}/people/${manager.personId}`, {
      permissions: [],
    });
    assert.equal((await manager.request('GET', hooks)).statusCode, 403);
    assert.equal(
      (await manager.request('GET', `/admin/v1/institutions/${tenant.slug}/runs`)).statusCode,
      200,
    );

    const ended = await ctx().admin(
      'DELETE',
      `/admin/v1/institutions/${tenant.slug}/people/${manager.personId}/sessions`,
    );
    assert.deepEqual(ended.json(), { ended: 1 });
    assert.equal((await manager.request('GET', '/admin/v1/me')).statusCode, 401);

    const staff = await personBrowser(ctx(), tenant, { roles: ['staff'] });
    assert.equal((await staff.request('GET', '/admin/v1/me')).statusCode, 200);
    await ctx().admin('DELETE', `/admin/v1/institutions/${tenant.slug}/people/${staff.personId}`);
    assert.equal((await staff.request('GET', '/admin/v1/me')).statusCode, 401);
  });

  test('GET /admin/v1/me says who is asking', async () => {
    const tenant = await seedTenant(ctx());
    const manager = await personBrowser(ctx(), tenant, {
      roles: ['admin'],
      permissions: ['manage_integrations'],
    });
    const me = (await manager.request('GET', '/admin/v1/me')).json();
    assert.equal(me.kind, 'person');
    assert.equal(me.institution_id, tenant.institutionId);
    assert.deepEqual([me.roles, me.permissions], [['admin'], ['manage_integrations']]);
    assert.match(me.csrf_token, /\S{20,}/);
    const student = await studentBrowser(ctx(), tenant);
    const studentMe = (await student.request('GET', '/admin/v1/me')).json();
    assert.deepEqual(
      [studentMe.kind, studentMe.student_id, studentMe.roles],
      ['student', student.studentId, ['student']],
    );
    const op = (await ctx().admin('GET', '/admin/v1/me')).json();
    assert.deepEqual([op.kind, op.session_id, op.csrf_token], ['operator', undefined, undefined]);
    const opSession = await operatorBrowser(ctx());
    assert.equal((await opSession.request('GET', '/admin/v1/me')).json().kind, 'operator');
  });

  test('a write made with the session cookie needs its CSRF token; a token of another session is refused', async () => {
    const tenant = await seedTenant(ctx());
    const admin = await personBrowser(ctx(), tenant, { roles: ['admin'] });
    const other = await personBrowser(ctx(), tenant, { roles: ['admin'] });
    const url = `/admin/v1/institutions/${tenant.slug}/cohorts`;
    const withoutToken = await admin.request('POST', url, { name: 'No token' }, { csrf: false });
    assert.equal(withoutToken.statusCode, 403);
    assert.equal(withoutToken.json().error, 'csrf_invalid');
    // The cookie alone, as a cross-site form would send it: nothing happens.
    const crossSite = await ctx().request({
      method: 'POST',
      url,
      headers: { cookie: admin.cookie, 'content-type': 'application/json', origin: 'https://evil.example' },
      body: { name: 'Cross-site' },
    });
    assert.equal(crossSite.statusCode, 403);
    const foreignToken = await ctx().request({
      method: 'POST',
      url,
      headers: { cookie: admin.cookie, 'x-csrf-token': other.csrf },
      body: { name: 'Foreign token' },
    });
    assert.equal(foreignToken.statusCode, 403);
    const cohorts = (await ctx().admin('GET', url)).json().items.map((c: { name: string }) => c.name);
    assert.deepEqual(cohorts, ['Cohort A']);
    const ok = await admin.request('POST', url, { name: 'With token' });
    assert.equal(ok.statusCode, 201, ok.body);
    // Reads need no token.
    assert.equal((await admin.request('GET', url, undefined, { csrf: false })).statusCode, 200);
  });

  test('a session never authenticates a feed, and a feed secret never the admin API', async () => {
    const tenant = await seedTenant(ctx());
    const admin = await personBrowser(ctx(), tenant, {
      roles: ['admin'],
      permissions: ['manage_integrations'],
    });
    const sync = await ctx().request({
      method: 'POST',
      url: '/api/sis/sync',
      headers: { cookie: admin.cookie, 'x-csrf-token': admin.csrf },
      body: { cohort_id: tenant.cohortId, students: [{ email: 'a@b.edu', student_id_ext: '1' }] },
    });
    assert.equal(sync.statusCode, 401);
    const enrolments = await ctx().request({
      method: 'POST',
      url: '/api/sis/enrolments',
      headers: { cookie: admin.cookie, 'x-csrf-token': admin.csrf },
      body: { institution: tenant.slug, programs: [{ program_code: 'X' }] },
    });
    assert.equal(enrolments.statusCode, 401);
    const helpSync = await ctx().request({
      method: 'POST',
      url: '/api/integrations/help-sync',
      headers: { cookie: admin.cookie, 'x-csrf-token': admin.csrf },
      body: { institution: tenant.slug, updates: [] },
    });
    assert.equal(helpSync.statusCode, 401);

    const syncSecret = (
      await admin.request('POST', `/admin/v1/institutions/${tenant.slug}/help-sync-secret`)
    ).json().secret;
    for (const secret of [tenant.rosterSecret, syncSecret]) {
      const me = await ctx().request({ method: 'GET', url: '/admin/v1/me', token: secret });
      assert.equal(me.statusCode, 401);
      const people = await ctx().request({
        method: 'GET',
        url: `/admin/v1/institutions/${tenant.slug}/people`,
        token: secret,
      });
      assert.equal(people.statusCode, 401);
    }
    // A session token sent as a bearer is not an operator token either.
    const session = await startSession(ctx().deps, { kind: 'operator' });
    assert.equal(
      (await ctx().request({ method: 'GET', url: '/admin/v1/me', token: session.token })).statusCode,
      401,
    );
  });

  test('sessions time out when idle and at their absolute limit; sign-out ends one', async () => {
    const tenant = await seedTenant(ctx());
    const person = await invitePerson(ctx(), tenant, { roles: ['staff'] });
    const { deps } = ctx();
    const session = await startSession(deps, {
      kind: 'person',
      personId: person.id,
      institutionId: tenant.institutionId,
    });
    const { idleMinutes } = { idleMinutes: deps.config.sessionIdleMinutes };
    await ctx().db.query(
      "UPDATE sessions SET last_seen_at = now() - make_interval(mins => $2) - interval '1 minute' WHERE id = $1",
      [session.id, idleMinutes],
    );
    assert.equal(await authenticateSession(deps, session.token), undefined);
    const second = await startSession(deps, {
      kind: 'person',
      personId: person.id,
      institutionId: tenant.institutionId,
    });
    await ctx().db.query("UPDATE sessions SET expires_at = now() - interval '1 second' WHERE id = $1", [
      second.id,
    ]);
    assert.equal(await authenticateSession(deps, second.token), undefined);
    const third = await startSession(deps, {
      kind: 'person',
      personId: person.id,
      institutionId: tenant.institutionId,
    });
    const browser = await browserWith(ctx(), third.token);
    const signOut = await ctx().request({
      method: 'POST',
      url: '/auth/sign-out',
      headers: { cookie: browser.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: undefined,
    });
    assert.equal(signOut.statusCode, 403, 'sign-out without the CSRF token does nothing');
    const out = await ctx().app.inject({
      method: 'POST',
      url: '/auth/sign-out',
      headers: { cookie: browser.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: `_csrf=${encodeURIComponent(browser.csrf)}`,
    });
    assert.equal(out.statusCode, 200, out.body);
    assert.match(out.headers['set-cookie']?.toString() ?? '', /ssp_session=;/);
    assert.equal(await authenticateSession(deps, third.token), undefined);
    // Only a hash of the session token is stored.
    const stored = await ctx().db.query('SELECT token_hash FROM sessions WHERE id = $1', [third.id]);
    assert.notEqual(stored.rows[0].token_hash, third.token);
  });
});
