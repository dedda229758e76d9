// A console page resolves the caller once, in the request context, and reads and writes through
// the domain: the inbox, a help request's page and its staff actions, the webhooks page and an
// endpoint's page with its actions, the integration health, secrets, people, crisis contacts and
// cohorts pages with their forms, and the operator's institutions each resolve the session exactly
// once and make no in-process request.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachDatabase, seedTenant } from '../helpers/app.ts';
import { createHelpRequest, seedHelpdesk } from '../helpers/helpdesk.ts';
import { type RequestCost, requestCost } from '../helpers/page-load.ts';
import { operatorBrowser, personBrowser } from '../helpers/people.ts';
import { addEndpoint } from '../helpers/webhooks.ts';

describeEachDatabase('console pages and the request context', (ctx) => {
  const once = (cost: RequestCost, status: number, what: string) => {
    assert.equal(cost.response.statusCode, status, `${what}: ${cost.response.body.slice(0, 300)}`);
    assert.equal(cost.sessionLookups, 1, `${what}: the session is resolved once`);
    assert.equal(cost.injects, 0, `${what}: no in-process request`);
  };

  test('the inbox, a help request and a staff action: one session lookup, no in-process request', async () => {
    const tenant = await seedHelpdesk(ctx());
    const staff = await personBrowser(ctx(), tenant, { roles: ['staff'], name: 'Kai Lee' });
    const request = await createHelpRequest(ctx(), tenant, {
      summary: 'Needs a call back',
      priority: 'crisis',
    });
    const base = `/console/${tenant.slug}/inbox`;

    const inbox = await requestCost(ctx(), staff, `${base}?assigned=unassigned`);
    once(inbox, 200, 'the inbox');
    assert.match(inbox.response.body, /Needs a call back/);
    once(await requestCost(ctx(), staff, `${base}/${request.id}`), 200, 'a help request');
    once(await requestCost(ctx(), staff, `${base}/${request.id}/notes`, { note: 'Called' }), 303, 'a note');
    // A refused post shows the page again from the domain: still one lookup.
    once(await requestCost(ctx(), staff, `${base}/${request.id}/notes`, { note: ' ' }), 400, 'an empty note');
  });

  test("the webhooks page, an endpoint's page and its actions: one session lookup, no in-process request", async () => {
    const tenant = await seedTenant(ctx(), { rosterSecret: false });
    const manager = await personBrowser(ctx(), tenant, {
      roles: ['admin'],
      permissions: ['manage_integrations'],
    });
    const endpoint = await addEndpoint(ctx(), tenant, { url: 'https://8.8.8.8/hook' });
    const page = `/console/${tenant.slug}/webhooks`;

    once(await requestCost(ctx(), manager, page), 200, 'the webhooks page');
    const shown = await requestCost(ctx(), manager, `${page}/${endpoint.id}`);
    once(shown, 200, "an endpoint's page");
    assert.match(shown.response.body, /https:\/\/8\.8\.8\.8\/hook/);
    once(await requestCost(ctx(), manager, `${page}/${endpoint.id}/test`, {}), 303, 'a test event');
    once(
      await requestCost(ctx(), manager, `${page}/${endpoint.id}/event-types`, {
        event_types: 'help_request.crisis',
      }),
      303,
      'saving the event types',
    );
  });

  test('integration health, secrets, people, crisis contacts, cohorts and their forms: one session lookup, no in-process request', async () => {
    const tenant = await seedTenant(ctx());
    const manager = await personBrowser(ctx(), tenant, {
      roles: ['admin'],
      permissions: ['manage_integrations'],
    });
    const staff = await personBrowser(ctx(), tenant, { roles: ['staff'], name: 'Kai Lee' });
    const base = `/console/${tenant.slug}`;

    const health = await requestCost(ctx(), manager, `${base}/`);
    once(health, 200, 'the integration health');
    assert.match(health.response.body, /Integration health/);
    once(await requestCost(ctx(), manager, `${base}/secrets`), 200, 'the secrets');
    once(
      await requestCost(ctx(), manager, `${base}/secrets/help-sync`, {}),
      200,
      'issuing the help-sync secret',
    );
    once(await requestCost(ctx(), manager, `${base}/people`), 200, 'the people');
    const person = await requestCost(ctx(), manager, `${base}/people/${staff.personId}`);
    once(person, 200, "a person's page");
    assert.match(person.response.body, /Kai Lee/);
    once(
      await requestCost(ctx(), manager, `${base}/people`, {
        email: 'new@example.edu',
        name: 'New One',
        roles: 'staff',
      }),
      303,
      'an invitation',
    );
    // A refused post shows the page again from the domain: still one lookup.
    once(
      await requestCost(ctx(), manager, `${base}/people`, { email: 'not an email', name: '' }),
      400,
      'a bad invitation',
    );
    once(await requestCost(ctx(), manager, `${base}/crisis-contacts`), 200, 'the crisis contacts');
    once(
      await requestCost(ctx(), manager, `${base}/crisis-contacts`, {
        rows: '1',
        name_0: 'Security',
        phone_0: '555 0100',
      }),
      303,
      'saving the crisis contacts',
    );
    once(await requestCost(ctx(), manager, `${base}/cohorts`), 200, 'the cohorts');
    once(await requestCost(ctx(), manager, `${base}/cohorts/${tenant.cohortId}`), 200, "a cohort's page");
    once(
      await requestCost(ctx(), manager, `${base}/cohorts/${tenant.cohortId}`, {
        name: 'Renamed',
        clock: 'cohort',
      }),
      303,
      'changing a cohort',
    );
    once(
      await requestCost(ctx(), manager, `${base}/time-zone`, { time_zone: 'Australia/Sydney' }),
      303,
      'the time zone',
    );
  });

  test("the operator's institutions and creating one: one session lookup, no in-process request", async () => {
    const operator = await operatorBrowser(ctx());
    once(await requestCost(ctx(), operator, '/console/'), 200, 'the institutions');
    const slug = `made-${Date.now().toString(36)}`;
    const created = await requestCost(ctx(), operator, '/console/', {
      slug,
      name: 'Made Here',
      time_zone: 'UTC',
    });
    once(created, 303, 'creating an institution');
    assert.equal(created.response.headers.location, `/console/${slug}/?done=institution_created`);
  });
});
