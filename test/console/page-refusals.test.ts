// Refusals a person reads on a page: a malformed id in the address is the not-found page (never a
// schema path), and inbox filters the form does not offer are named above an empty list.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
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

  // Every console page with an id in its address. A page reads its item and what goes with it at
  // once; whichever read fails first on a malformed id, the answer is the not-found page.
  const pagesWithId = [
    'runs/:id',
    'runs/:id/errors.csv',
    'saved-replies/:id',
    'students/:id',
    'students/:id/export',
    'students/:id/export.json',
    'students/:id/erase',
    'people/:id',
    'inbox/:id',
    'webhooks/:id',
    'webhooks/:id/attempts/:id',
    'full-syncs/:id',
    'calendar-feeds/:id',
    'cohorts/:id',
  ];

  test('every page with an id answers not found for a malformed, unknown or foreign id (property)', async () => {
    const tenant = await seedHelpdesk(ctx(), { syncSecret: false });
    const other = await seedHelpdesk(ctx(), { syncSecret: false });
    const foreign = await createHelpRequest(ctx(), other, { summary: 'Another institution' });
    const admin = await personBrowser(ctx(), tenant, {
      roles: ['admin', 'staff'],
      permissions: ['manage_integrations'],
    });
    const id = fc.oneof(
      fc.constantFrom(
        'not-a-uuid',
        '123',
        'x'.repeat(300),
        '%E2%80%8B',
        foreign.id,
        other.cohortId,
        other.studentIds[0] ?? '',
      ),
      fc.uuid(),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...pagesWithId), id, async (page, value) => {
        const url = `/console/${tenant.slug}/${page.replaceAll(':id', value)}`;
        const res = await ctx().app.inject({ method: 'GET', url, headers: { cookie: admin.cookie } });
        assert.equal(res.statusCode, 404, `${url}: ${res.statusCode}`);
        assert.doesNotMatch(res.body, /Another institution|params\.|must match format/, url);
      }),
      { numRuns: 60 },
    );
  });
});
