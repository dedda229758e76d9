// The request page's assign form: a labelled select of the institution's active staff and admins
// (plain form posts, no JavaScript), "Assign to me", refusals next to the field, and the inbox's
// "assigned to me" filter by the signed-in person's id.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachDatabase } from '../helpers/app.ts';
import { createHelpRequest, readHelpRequest, seedHelpdesk } from '../helpers/helpdesk.ts';
import { type Browser, invitePerson, personBrowser } from '../helpers/people.ts';

describeEachDatabase('console: assigning a help request', (ctx) => {
  const page = async (browser: Browser, url: string) => {
    const res = await ctx().app.inject({ method: 'GET', url, headers: { cookie: browser.cookie } });
    assert.equal(res.statusCode, 200, `${url}: ${res.statusCode} ${res.body.slice(0, 300)}`);
    return res.body;
  };
  const post = (browser: Browser, url: string, form: Record<string, string>) =>
    ctx().app.inject({
      method: 'POST',
      url,
      headers: { cookie: browser.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ _csrf: browser.csrf, ...form }).toString(),
    });

  test('the select offers staff and admins; assign, assign to me, refusals, and the inbox filter', async () => {
    const tenant = await seedHelpdesk(ctx());
    const other = await seedHelpdesk(ctx());
    const me = await personBrowser(ctx(), tenant, { roles: ['staff'], name: 'Kai Lee' });
    const twin = await personBrowser(ctx(), tenant, { roles: ['admin'], name: 'Kai Lee' });
    const colleague = await invitePerson(ctx(), tenant, { roles: ['staff'], name: 'Robin Colleague' });
    const removed = await invitePerson(ctx(), tenant, { roles: ['staff'], name: 'Removed Person' });
    await ctx().admin('DELETE', `/admin/v1/institutions/${tenant.slug}/people/${removed.id}`);
    await invitePerson(ctx(), other, { roles: ['staff'], name: 'Other Institution Staff' });
    const request = await createHelpRequest(ctx(), tenant, { summary: 'Needs a call back' });
    const base = `/console/${tenant.slug}/inbox`;

    const html = await page(me, `${base}/${request.id}`);
    assert.match(html, /<label for="assignee_id">Assign to<\/label>/);
    assert.match(html, /<select id="assignee_id" name="assignee_id"/);
    const options = [...html.matchAll(/<option value="([0-9a-f-]{36})"( selected)?>([^<]*)<\/option>/g)].map(
      (m) => [m[1], m[3], m[2] === ' selected'],
    );
    // By name; people with the same name told apart by email; the signed-in person chosen by default.
    assert.deepEqual(
      options.map(([id]) => id),
      [...[me.personId, twin.personId].sort(), colleague.id],
    );
    assert.ok(options.every(([, label]) => !/Removed Person|Other Institution Staff/.test(String(label))));
    assert.match(String(options.find(([id]) => id === me.personId)?.[1]), /^Kai Lee \(.+@.+\)$/);
    assert.equal(options.find(([id]) => id === me.personId)?.[2], true);
    assert.match(html, /<button type="submit" name="to_me" value="yes"[^>]*>Assign to me<\/button>/);

    const assigned = await post(me, `${base}/${request.id}/assignment`, { assignee_id: colleague.id });
    assert.equal(assigned.statusCode, 303, assigned.body);
    assert.match(String(assigned.headers.location), /done=assignment_changed/);
    assert.equal((await readHelpRequest(ctx(), tenant, request.id)).assigned_to_id, colleague.id);
    assert.match(await page(me, `${base}/${request.id}`), /<dd>Robin Colleague<\/dd>/);

    // "Assign to me" sends the signed-in person, whatever the select holds.
    const toMe = await post(me, `${base}/${request.id}/assignment`, {
      assignee_id: colleague.id,
      to_me: 'yes',
    });
    assert.equal(toMe.statusCode, 303, toMe.body);
    const read = await readHelpRequest(ctx(), tenant, request.id);
    assert.equal(read.assigned_to_id, me.personId);
    assert.equal(read.timeline.at(-1)?.actor, 'Kai Lee');

    // A person who may not be assigned: the API's refusal next to the field, nothing changed.
    const refused = await post(me, `${base}/${request.id}/assignment`, { assignee_id: removed.id });
    assert.equal(refused.statusCode, 400);
    assert.match(
      refused.body,
      /<p class="field-error" id="assignee_id-error">[^<_]*was removed from this institution[^<_]*</,
    );
    assert.match(refused.body, /aria-describedby="assignee_id-error"/);
    assert.equal((await readHelpRequest(ctx(), tenant, request.id)).assigned_to_id, me.personId);

    // "Assigned to me" is mine only, not my namesake's.
    assert.match(await page(me, `${base}?assigned=me`), /Needs a call back/);
    assert.doesNotMatch(await page(twin, `${base}?assigned=me`), /Needs a call back/);

    const unassigned = await post(me, `${base}/${request.id}/assignment`, { unassign: 'yes' });
    assert.equal(unassigned.statusCode, 303, unassigned.body);
    assert.equal((await readHelpRequest(ctx(), tenant, request.id)).assigned_to_id, null);
  });
});
