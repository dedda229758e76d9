// A console page resolves the caller once, in the request context, and reads and writes through
// the domain: the inbox, a help request's page and its staff actions, the webhooks page and an
// endpoint's page with its actions, the data pages (students, a student, the CSV export,
// programs, terms, units, enrolments, campuses and a merge), push history and a run, full syncs
// and a decision, the calendar feeds with their changes, the integration health, secrets, people,
// crisis contacts and cohorts pages with their forms, and the operator's institutions each resolve
// the session exactly once and make no in-process request.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { recordRun } from '../../src/domain/runs/runs.ts';
import { describeEachDatabase, seedTenant } from '../helpers/app.ts';
import { seedConsoleData } from '../helpers/console-data.ts';
import { createHelpRequest, seedHelpdesk } from '../helpers/helpdesk.ts';
import { type RequestCost, requestCost } from '../helpers/page-load.ts';
import { operatorBrowser, personBrowser } from '../helpers/people.ts';
import { recordEmptyFinalPage } from '../helpers/roster.ts';
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

  test('the data pages, the export and a merge: one session lookup, no in-process request', async () => {
    const tenant = await seedTenant(ctx());
    await seedConsoleData(ctx(), tenant);
    const admin = await personBrowser(ctx(), tenant, { roles: ['admin'] });
    const operator = await operatorBrowser(ctx());
    const base = `/console/${tenant.slug}`;
    const students = await requestCost(ctx(), admin, `${base}/students?q=ada`);
    once(students, 200, 'the students page');
    const ada = /href="\/console\/[^/]+\/students\/([0-9a-f-]{36})"/.exec(students.response.body)?.[1];
    assert.ok(ada, 'a link to a student');
    once(await requestCost(ctx(), admin, `${base}/students/${ada}`), 200, "a student's page");
    const csv = await requestCost(ctx(), admin, `${base}/students.csv?program=NURS`);
    once(csv, 200, 'the CSV export');
    assert.match(csv.response.body, /^id,email/);
    once(await requestCost(ctx(), admin, `${base}/students?status=gone`), 400, 'a refused filter');
    for (const page of [
      'programs',
      'terms',
      'units?program_code=NURS',
      'enrolments?status=enrolled',
      'campuses',
    ])
      once(await requestCost(ctx(), admin, `${base}/${page}`), 200, page);
    once(
      await requestCost(ctx(), operator, `${base}/campuses/merge`, { from: 'Riverside', into: 'City' }),
      200,
      'the merge confirmation',
    );
    once(
      await requestCost(ctx(), operator, `${base}/campuses/merge`, {
        from: 'Riverside',
        into: 'City',
        confirmed: 'yes',
      }),
      303,
      'a merge',
    );
  });

  test('push history, a run, full syncs and a decision: one session lookup, no in-process request', async () => {
    const tenant = await seedTenant(ctx());
    await seedConsoleData(ctx(), tenant);
    const admin = await personBrowser(ctx(), tenant, { roles: ['admin'] });
    const run = await recordRun(ctx().db, {
      institutionId: tenant.institutionId,
      kind: 'roster',
      credential: 'institution_secret',
      dryRun: false,
      received: 2,
      counts: { created: 1 },
      errors: [{ row: 2, message: 'not an email' }],
      startedAt: new Date(),
    });
    const held = await recordEmptyFinalPage(ctx(), tenant);
    assert.equal(held.status, 'held');
    const base = `/console/${tenant.slug}`;
    once(await requestCost(ctx(), admin, `${base}/runs?errors=yes`), 200, 'push history');
    once(await requestCost(ctx(), admin, `${base}/runs/${run}`), 200, 'a run');
    once(await requestCost(ctx(), admin, `${base}/runs/${run}/errors.csv`), 200, "a run's errors");
    const syncs = await requestCost(ctx(), admin, `${base}/full-syncs`);
    once(syncs, 200, 'full syncs');
    const sync = /href="\/console\/[^/]+\/full-syncs\/([0-9a-f-]{36})"/.exec(syncs.response.body)?.[1];
    assert.ok(sync, 'a link to the held sync');
    once(await requestCost(ctx(), admin, `${base}/full-syncs/${sync}`), 200, 'a full sync');
    once(await requestCost(ctx(), admin, `${base}/full-syncs/${sync}/discard`, {}), 200, 'the confirmation');
    once(
      await requestCost(ctx(), admin, `${base}/full-syncs/${sync}/discard`, { confirmed: 'yes' }),
      303,
      'a decision',
    );
  });

  test('calendar feeds and their changes: one session lookup, no in-process request', async () => {
    const tenant = await seedTenant(ctx(), { rosterSecret: false });
    const admin = await personBrowser(ctx(), tenant, { roles: ['admin'] });
    const page = `/console/${tenant.slug}/calendar-feeds`;
    once(await requestCost(ctx(), admin, page), 200, 'the feeds');
    const added = await requestCost(ctx(), admin, page, { url: 'https://8.8.8.8/term.ics', name: 'Term' });
    once(added, 303, 'adding a feed');
    const feed = (added.response.headers.location as string).split('?')[0];
    once(await requestCost(ctx(), admin, feed), 200, "a feed's page");
    once(
      await requestCost(ctx(), admin, feed, { url: 'https://8.8.8.8/term.ics', refresh_minutes: '1' }),
      400,
      'a refused change',
    );
    once(
      await requestCost(ctx(), admin, feed, { url: 'https://8.8.8.8/term.ics', name: 'Terms' }),
      303,
      'a change',
    );
    once(await requestCost(ctx(), admin, `${feed}/delete`, {}), 200, 'the confirmation');
    once(await requestCost(ctx(), admin, `${feed}/delete`, { confirmed: 'yes' }), 303, 'deleting it');
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
