import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import fc from 'fast-check';
import { describeEachDatabase } from '../helpers/app.ts';
import {
  createHelpRequest,
  type HelpdeskTenant,
  type HelpRequestJson,
  readEvents,
  readHelpRequest,
  seedHelpdesk,
  staff,
} from '../helpers/helpdesk.ts';
import { invitePerson, personBrowser } from '../helpers/people.ts';

interface Row {
  id: string;
  priority: string;
  status: string;
  assigned_to: string | null;
  created_at: string;
}

describeEachDatabase(
  'help-request listing: assignment, crisis-first order, staff from the session',
  (ctx) => {
    const url = (tenant: HelpdeskTenant, query = '') =>
      `/admin/v1/institutions/${tenant.slug}/help-requests${query}`;

    /** Every row of a listing, following next_cursor with small pages. */
    async function readAll(tenant: HelpdeskTenant, query: string, limit = 2): Promise<Row[]> {
      const rows: Row[] = [];
      let cursor: string | null = null;
      do {
        const sep = query ? '&' : '';
        const res = await ctx().admin(
          'GET',
          url(
            tenant,
            `?${query}${sep}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
          ),
        );
        assert.equal(res.statusCode, 200, res.body);
        rows.push(...res.json().items);
        cursor = res.json().next_cursor;
      } while (cursor);
      return rows;
    }

    test('assigned=none|any|<person id>|me is exact over the whole listing and pages by cursor', async () => {
      const tenant = await seedHelpdesk(ctx());
      const other = await seedHelpdesk(ctx());
      const person = await invitePerson(ctx(), tenant, { roles: ['staff'], name: 'Robin Counsellor' });
      const browser = await personBrowser(ctx(), tenant, { roles: ['staff'] });
      const me = (await browser.request('GET', '/admin/v1/me')).json();
      const myName: string = me.actor;

      const requests: HelpRequestJson[] = [];
      for (let i = 0; i < 7; i += 1) requests.push(await createHelpRequest(ctx(), tenant));
      const foreign = await createHelpRequest(ctx(), other);
      await staff(ctx(), other, foreign.id, 'assignment', { assignee: 'Robin Counsellor' });
      for (const r of requests.slice(0, 3))
        await staff(ctx(), tenant, r.id, 'assignment', { assignee: 'Robin Counsellor' });
      for (const r of requests.slice(3, 5))
        await browser.request('PUT', url(tenant, `/${r.id}/assignment`), { assignee: myName });

      const ids = (rows: { id: string }[]) => rows.map((r) => r.id).sort();
      assert.deepEqual(ids(await readAll(tenant, 'assigned=none')), ids(requests.slice(5)));
      assert.deepEqual(ids(await readAll(tenant, 'assigned=any')), ids(requests.slice(0, 5)));
      assert.deepEqual(ids(await readAll(tenant, `assigned=${person.id}`)), ids(requests.slice(0, 3)));
      // An unknown person, or one of another institution, is the same clear 400.
      const outsider = await invitePerson(ctx(), other, { roles: ['staff'] });
      for (const id of [randomUUID(), outsider.id]) {
        const res = await ctx().admin('GET', url(tenant, `?assigned=${id}`));
        assert.equal(res.statusCode, 400);
        assert.equal(res.json().error, 'invalid_field');
        assert.equal(res.json().field, 'assigned');
      }

      const mine = await browser.request('GET', url(tenant, '?assigned=me&limit=1'));
      assert.equal(mine.statusCode, 200);
      assert.equal(mine.json().items.length, 1);
      const second = await browser.request(
        'GET',
        url(tenant, `?assigned=me&limit=1&cursor=${encodeURIComponent(mine.json().next_cursor)}`),
      );
      assert.deepEqual(
        [mine.json().items[0].id, second.json().items[0].id].sort(),
        ids(requests.slice(3, 5)),
      );
      assert.equal(second.json().next_cursor, null);
      // The operator token is no person: `me` means nothing for it.
      const tokenMe = await ctx().admin('GET', url(tenant, '?assigned=me'));
      assert.equal(tokenMe.statusCode, 400);
      assert.equal(tokenMe.json().error, 'invalid_field');
      // Combined with a status filter.
      await staff(ctx(), tenant, requests[0].id, 'status', { status: 'resolved' });
      assert.deepEqual(ids(await readAll(tenant, `assigned=${person.id}&status=resolved`)), [requests[0].id]);
    });

    test('order=crisis_first: open crisis requests first, then newest first; every row once', async () => {
      const tenant = await seedHelpdesk(ctx());
      const made: HelpRequestJson[] = [];
      for (const priority of ['normal', 'crisis', 'low', 'crisis', 'high', 'crisis', 'normal'])
        made.push(await createHelpRequest(ctx(), tenant, { priority }));
      await staff(ctx(), tenant, made[3].id, 'status', { status: 'resolved' });

      const newest = await readAll(tenant, '', 1000);
      const open = (r: Row) => r.priority === 'crisis' && r.status !== 'resolved';
      const expected = [...newest.filter(open), ...newest.filter((r) => !open(r))].map((r) => r.id);
      assert.equal(newest.filter(open).length, 2);
      assert.deepEqual(
        (await readAll(tenant, 'order=crisis_first', 2)).map((r) => r.id),
        expected,
      );
      assert.deepEqual(
        (await readAll(tenant, 'order=crisis_first', 1000)).map((r) => r.id),
        expected,
      );
      // Filters combine with the order: the unassigned new requests, crisis first.
      const filtered = await readAll(tenant, 'order=crisis_first&status=new&assigned=none', 1);
      assert.deepEqual(
        filtered.map((r) => r.id),
        expected.filter((id) => id !== made[3].id),
      );

      // A cursor of one order is refused by the other.
      const first = await ctx().admin('GET', url(tenant, '?limit=1'));
      const mixed = await ctx().admin(
        'GET',
        url(tenant, `?order=crisis_first&cursor=${encodeURIComponent(first.json().next_cursor)}`),
      );
      assert.equal(mixed.statusCode, 400);
      assert.equal(mixed.json().error, 'invalid_cursor');
    });

    test('a signed-in person is recorded as themselves; the token caller names the staff member', async () => {
      const tenant = await seedHelpdesk(ctx());
      const request = await createHelpRequest(ctx(), tenant);
      const browser = await personBrowser(ctx(), tenant, { roles: ['staff'] });
      const me = (await browser.request('GET', '/admin/v1/me')).json();
      const myName: string = me.actor;
      const path = url(tenant, `/${request.id}`);

      // Without a staff name, and with someone else's: both are the session's person.
      const status = await browser.request('POST', `${path}/status`, { status: 'ack' });
      assert.equal(status.statusCode, 200, status.body);
      const note = await browser.request('POST', `${path}/notes`, {
        note: 'Rang back',
        staff: 'Somebody Else',
      });
      assert.equal(note.statusCode, 200, note.body);
      const assign = await browser.request('PUT', `${path}/assignment`, { assignee: myName });
      assert.equal(assign.statusCode, 200, assign.body);
      const byToken = await staff(ctx(), tenant, request.id, 'notes', {
        note: 'From the help desk',
        staff: 'Ana',
      });
      assert.equal(byToken.statusCode, 200);
      const noStaff = await ctx().admin('POST', `${path}/notes`, { note: 'x' });
      assert.equal(noStaff.statusCode, 400);
      assert.equal(noStaff.json().error, 'missing_field');
      assert.equal(noStaff.json().field, 'staff');

      const read = await readHelpRequest(ctx(), tenant, request.id);
      assert.deepEqual(
        read.timeline.slice(1).map((t) => [t.action, t.actor]),
        [
          ['status', myName],
          ['note', myName],
          ['assign', myName],
          ['note', 'Ana'],
        ],
      );
      const events = (await readEvents(ctx(), tenant)).filter((e) => e.type === 'help_request.updated');
      assert.deepEqual(
        events.map((e) => e.payload.data.actor),
        [myName, myName, myName, 'Ana'],
      );
    });

    test('bad filter input is a 400 with a stable code, never a 5xx (property)', async () => {
      const tenant = await seedHelpdesk(ctx());
      await createHelpRequest(ctx(), tenant, { priority: 'crisis' });
      const value = fc.oneof(
        fc.string({ maxLength: 40 }),
        fc.constantFrom('me', 'none', 'any', 'crisis_first', 'newest', 'new', 'crisis', '', '%00', '\u0000'),
        fc.uuid(),
        fc.integer().map(String),
      );
      const codes = new Set(['invalid_field', 'invalid_cursor', 'missing_field']);
      await fc.assert(
        fc.asyncProperty(
          fc.record(
            {
              assigned: value,
              order: value,
              status: value,
              priority: value,
              student_id: value,
              cursor: value,
              limit: value,
            },
            { requiredKeys: [] },
          ),
          async (query) => {
            const qs = new URLSearchParams(query as Record<string, string>).toString();
            const res = await ctx().admin('GET', url(tenant, `?${qs}`));
            assert.ok(res.statusCode === 200 || res.statusCode === 400, `${res.statusCode} ${res.body}`);
            if (res.statusCode === 400) assert.ok(codes.has(res.json().error), res.body);
          },
        ),
        { numRuns: 60 },
      );
    });
  },
);
