// The admin side of the student pages: cohort start dates (create, PATCH, read one), crisis contacts
// (GET/PUT, validated per contact), help-request categories, and the CLI commands for them.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { describeEachDatabase, seedTenant } from '../helpers/app.ts';
import { cliServer } from '../helpers/cli.ts';
import { personBrowser } from '../helpers/people.ts';
import { pushRoster } from '../helpers/roster.ts';

describeEachDatabase('admin API of the student pages', (ctx) => {
  test('cohorts: start_date on create, PATCH changes and clears it; bad dates and other tenants refused', async () => {
    const tenant = await seedTenant(ctx());
    const other = await seedTenant(ctx());
    const base = `/admin/v1/institutions/${tenant.slug}/cohorts`;
    const created = await ctx().admin('POST', base, { name: 'Autumn 2026', start_date: '2026-09-07' });
    assert.equal(created.statusCode, 201, created.body);
    assert.deepEqual([created.json().clock, created.json().start_date], ['cohort', '2026-09-07']);
    const id = created.json().id;
    const patched = await ctx().admin('PATCH', `${base}/${id}`, { start_date: '2026-09-14', name: 'Autumn' });
    assert.deepEqual([patched.json().name, patched.json().start_date], ['Autumn', '2026-09-14']);
    const unchanged = await ctx().admin('PATCH', `${base}/${id}`, { clock: 'individual' });
    assert.deepEqual([unchanged.json().clock, unchanged.json().start_date], ['individual', '2026-09-14']);
    const cleared = await ctx().admin('PATCH', `${base}/${id}`, { start_date: null });
    assert.equal(cleared.json().start_date, null);
    const listed = (await ctx().admin('GET', base)).json().items.find((c: { id: string }) => c.id === id);
    assert.equal(listed.start_date, null);

    for (const bad of ['2026-02-30', '2026-9-7', 'tomorrow', '1800-01-01', '']) {
      const res = await ctx().admin('PATCH', `${base}/${id}`, { start_date: bad });
      assert.equal(res.statusCode, 400, bad);
      assert.deepEqual([res.json().error, res.json().field], ['invalid_field', 'start_date']);
    }
    const badCreate = await ctx().admin('POST', base, { name: 'X', start_date: '2026-13-01' });
    assert.equal(badCreate.statusCode, 400);
    const foreign = await ctx().admin('PATCH', `/admin/v1/institutions/${other.slug}/cohorts/${id}`, {
      name: 'stolen',
    });
    assert.deepEqual([foreign.statusCode, foreign.json().error], [404, 'cohort_not_found']);
    const staff = await personBrowser(ctx(), tenant, { roles: ['staff'] });
    assert.equal((await staff.request('PATCH', `${base}/${id}`, { name: 'no' })).statusCode, 403);
    // One cohort: staff may read it; another institution's or a malformed id is cohort_not_found.
    const one = await staff.request('GET', `${base}/${id}`);
    assert.equal(one.statusCode, 200, one.body);
    assert.deepEqual([one.json().id, one.json().name, one.json().start_date], [id, 'Autumn', null]);
    for (const url of [`/admin/v1/institutions/${other.slug}/cohorts/${id}`, `${base}/not-a-uuid`]) {
      const missing = await ctx().admin('GET', url);
      assert.equal(missing.statusCode, url.endsWith('not-a-uuid') ? 400 : 404, url);
    }
    const foreignRead = await ctx().admin('GET', `/admin/v1/institutions/${other.slug}/cohorts/${id}`);
    assert.equal(foreignRead.json().error, 'cohort_not_found');
  });

  test('crisis contacts: replace, read in order, clear; each bad contact is a 400 naming it', async () => {
    const tenant = await seedTenant(ctx());
    const path = `/admin/v1/institutions/${tenant.slug}/crisis-contacts`;
    assert.deepEqual((await ctx().admin('GET', path)).json(), { contacts: [] });
    const contacts = [
      { name: ' Campus security ', phone: '+44 (0)20 7946-0000', hours: '24/7' },
      { name: 'Night line', url: 'https://nightline.example.org', description: 'Listening service' },
    ];
    const put = await ctx().admin('PUT', path, { contacts });
    assert.equal(put.statusCode, 200, put.body);
    const expected = {
      contacts: [
        {
          name: 'Campus security',
          phone: '+44 (0)20 7946-0000',
          url: null,
          hours: '24/7',
          description: null,
        },
        {
          name: 'Night line',
          phone: null,
          url: 'https://nightline.example.org',
          hours: null,
          description: 'Listening service',
        },
      ],
    };
    assert.deepEqual(put.json(), expected);
    assert.deepEqual((await ctx().admin('GET', path)).json(), expected);

    const cases: [unknown, number, string, string?][] = [
      [{ contacts: [{ phone: '123' }] }, 400, 'invalid_field', 'contacts[0].name'],
      [{ contacts: [{ name: 'A' }] }, 400, 'invalid_field', 'contacts[0].phone'],
      [
        { contacts: [contacts[0], { name: 'B', phone: 'call me' }] },
        400,
        'invalid_field',
        'contacts[1].phone',
      ],
      [{ contacts: [{ name: 'C', url: 'javascript:alert(1)' }] }, 400, 'invalid_field', 'contacts[0].url'],
      [
        { contacts: [{ name: 'D', phone: '123', colour: 'red' }] },
        400,
        'unknown_field',
        'contacts[0].colour',
      ],
      [{ contacts: ['not an object'] }, 400, 'invalid_field', 'contacts[0]'],
      [{ contacts: [{ name: 'x'.repeat(201), phone: '123' }] }, 400, 'invalid_field', 'contacts[0].name'],
      [{ contacts: [{ name: 'E\u0000', phone: '123' }] }, 400, 'invalid_field', 'contacts[0].name'],
      [{ contacts: Array.from({ length: 11 }, () => contacts[0]) }, 400, 'invalid_field', 'contacts'],
      [{}, 400, 'missing_field'],
    ];
    for (const [body, status, code, field] of cases) {
      const res = await ctx().admin('PUT', path, body);
      assert.equal(res.statusCode, status, `${JSON.stringify(body).slice(0, 80)} -> ${res.body}`);
      assert.equal(res.json().error, code, res.body);
      if (field) assert.equal(res.json().field, field, res.body);
    }
    // Refused lists changed nothing.
    assert.deepEqual((await ctx().admin('GET', path)).json(), expected);
    assert.deepEqual((await ctx().admin('PUT', path, { contacts: [] })).json(), { contacts: [] });

    const staff = await personBrowser(ctx(), tenant, { roles: ['staff'] });
    assert.equal((await staff.request('GET', path)).statusCode, 200);
    assert.equal((await staff.request('PUT', path, { contacts: [] })).statusCode, 403);
  });

  test('help requests carry a category from the fixed list', async () => {
    const tenant = await seedTenant(ctx());
    const students = await pushRoster(ctx(), tenant, {
      students: [{ email: 'cat@example.edu', student_id_ext: 'C1' }],
    });
    assert.equal(students.statusCode, 200);
    const studentId = (
      await ctx().admin('GET', `/admin/v1/institutions/${tenant.slug}/students?email=cat@example.edu`)
    ).json().items[0].id;
    const base = `/admin/v1/institutions/${tenant.slug}/help-requests`;
    const withCategory = await ctx().admin('POST', base, { student_id: studentId, category: 'financial' });
    assert.equal(withCategory.json().category, 'financial');
    const without = await ctx().admin('POST', base, { student_id: studentId });
    assert.equal(without.json().category, null);
    const bad = await ctx().admin('POST', base, { student_id: studentId, category: 'parking' });
    assert.equal(bad.statusCode, 400);
  });
});

describe('ssp cohorts and crisis-contacts (CLI)', () => {
  const server = cliServer();
  const { ssp } = server;

  test('cohorts create --start-date, cohorts update, crisis-contacts set/show/clear', async () => {
    const tenant = await seedTenant(server.ctx, { rosterSecret: false });
    const cohort = await ssp('cohorts', 'create', tenant.slug, 'Spring', '--start-date', '2027-02-01');
    assert.equal(cohort.start_date, '2027-02-01');
    const updated = await ssp('cohorts', 'update', tenant.slug, cohort.id, '--start-date', '2027-02-08');
    assert.equal(updated.start_date, '2027-02-08');
    const cleared = await ssp('cohorts', 'update', tenant.slug, cohort.id, '--start-date', 'none');
    assert.equal(cleared.start_date, null);

    const file = path.join(os.tmpdir(), `crisis-${process.pid}.json`);
    await writeFile(file, JSON.stringify([{ name: 'Helpline', phone: '0800 000 000', hours: '24/7' }]));
    const set = await ssp('crisis-contacts', 'set', tenant.slug, file);
    assert.equal(set.contacts[0].name, 'Helpline');
    assert.equal((await ssp('crisis-contacts', 'show', tenant.slug)).contacts.length, 1);
    assert.deepEqual(await ssp('crisis-contacts', 'clear', tenant.slug), { contacts: [] });
  });
});
