// Refusals a person reads on a page: a malformed id in the address is the not-found page (never a
// schema path), and inbox filters the form does not offer are named above an empty list.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachDatabase } from '../helpers/app.ts';
import { createHelpRequest, seedHelpdesk } from '../helpers/helpdesk.ts';
import { personBrowser } from '../helpers/people.ts';

describeEachDatabase('refusals on pages', (ctx) => {
  test('a malformed id is not found; a refused inbox filter says so', async () => {
    const tenant = await seedHelpdesk(ctx(), { syncSecret: false });
    await createHelpRequest(ctx(), tenant, { summary: 'Visible request' });
    const admin = await personBrowser(ctx(), tenant, { roles: ['admin'] });
    const get = (url: string) => ctx().app.inject({ method: 'GET', url, headers: { cookie: admin.cookie } });
    for (const path of ['inbox/not-a-uuid', 'runs/123']) {
      const res = await get(`/console/${tenant.slug}/${path}`);
      assert.equal(res.statusCode, 404, path);
      assert.match(res.body, /There is no page at this address/);
      assert.doesNotMatch(res.body, /params\.|must match format/);
    }
    const refused = await get(`/console/${tenant.slug}/inbox?status=bogus&priority=high`);
    assert.equal(refused.statusCode, 400);
    assert.match(
      refused.body,
      /role="alert">“bogus” is not a status this list offers: choose one from the form/,
    );
    assert.doesNotMatch(refused.body, /Visible request/);
    assert.match((await get(`/console/${tenant.slug}/inbox?status=new`)).body, /Visible request/);
  });
});
