// The inbox people work from, through the console and the admin API: search over the student's
// name, email and SIS id and the request's text; category and priority in words and as filters;
// time waiting against the priority's target, breaches marked; the live rows alone for the page's
// refresh; a short or odd search said in words, never a 5xx.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachDatabase } from '../helpers/app.ts';
import { testClock } from '../helpers/clock.ts';
import { createHelpRequest, type HelpdeskTenant, seedHelpdesk } from '../helpers/helpdesk.ts';
import { personBrowser } from '../helpers/people.ts';

const clock = testClock();
const MINUTE = 60_000;

describeEachDatabase(
  'inbox: search, category, time waiting, live rows',
  (ctx) => {
    /** A tenant whose first student is Mariana Okonkwo (SIS id SIS-77123), with four requests. */
    async function tenantWithRequests() {
      const tenant = await seedHelpdesk(ctx(), { students: 3 });
      await ctx().db.query(
        `UPDATE students SET first_name = 'Mariana', last_name = 'Okonkwo', student_id_ext = 'SIS-77123',
           email = 'm.okonkwo@uni.example.edu' WHERE id = $1`,
        [tenant.studentIds[0]],
      );
      const create = async (body: Record<string, unknown>) => {
        const res = await ctx().admin('POST', `/admin/v1/institutions/${tenant.slug}/help-requests`, body);
        assert.equal(res.statusCode, 201, res.body);
        return res.json().id as string;
      };
      const ids = {
        fees: await create({
          student_id: tenant.studentIds[0],
          category: 'financial',
          summary: 'Tuition payment plan',
        }),
        flat: await create({
          student_id: tenant.studentIds[1],
          category: 'accommodation',
          priority: 'high',
          summary: 'Mould in my flat',
        }),
        crisis: await create({ student_id: tenant.studentIds[2], priority: 'crisis', summary: 'Scared' }),
        plain: await create({ student_id: tenant.studentIds[1], summary: '100% lost_ on the timetable' }),
      };
      return { tenant, ids };
    }

    const listIds = async (tenant: HelpdeskTenant, query: string) => {
      const res = await ctx().admin('GET', `/admin/v1/institutions/${tenant.slug}/help-requests?${query}`);
      assert.equal(res.statusCode, 200, res.body);
      return (res.json().items as { id: string }[]).map((r) => r.id).sort();
    };

    test('the API searches name, email, SIS id and text anywhere, any case; filters by category', async () => {
      const { tenant, ids } = await tenantWithRequests();
      assert.deepEqual(await listIds(tenant, 'q=ARIAN'), [ids.fees]);
      assert.deepEqual(await listIds(tenant, 'q=okonkwo%40uni'), [ids.fees]);
      assert.deepEqual(await listIds(tenant, 'q=sis-771'), [ids.fees]);
      assert.deepEqual(await listIds(tenant, 'q=mould%20in'), [ids.flat]);
      assert.deepEqual(await listIds(tenant, `q=${encodeURIComponent('100% lost_')}`), [ids.plain]);
      assert.deepEqual(await listIds(tenant, 'q=%25%20l'), [ids.plain], 'LIKE wildcards are taken literally');
      assert.deepEqual(await listIds(tenant, 'q=n_p'), [], '"Tuition payment" has no "n_p"');
      assert.deepEqual(await listIds(tenant, 'q=zzzzzz'), []);
      assert.deepEqual(await listIds(tenant, 'category=accommodation'), [ids.flat]);
      assert.deepEqual(await listIds(tenant, 'category=accommodation&q=mould'), [ids.flat]);
      assert.deepEqual(await listIds(tenant, 'category=financial&q=mould'), []);
      // Another institution's requests are never found.
      const other = await tenantWithRequests();
      assert.deepEqual(await listIds(other.tenant, 'q=ARIAN'), [other.ids.fees]);

      const short = await ctx().admin('GET', `/admin/v1/institutions/${tenant.slug}/help-requests?q=ab`);
      assert.equal(short.statusCode, 400);
      assert.equal(short.json().error, 'invalid_field');
      assert.equal(short.json().field, 'querystring.q');
      const badCategory = await ctx().admin(
        'GET',
        `/admin/v1/institutions/${tenant.slug}/help-requests?category=academia`,
      );
      assert.equal(badCategory.statusCode, 400);
    });

    test('a search pages alike whichever way it is read (the ordered walk for a common term, the trigram indexes for the rest)', async () => {
      // "rent" is in half the requests' text and in the name of the first student (Rentoul), so
      // the first pages fill within the walk and the last one does not: the trigram read ends it.
      const tenant = await seedHelpdesk(ctx(), { students: 3 });
      await ctx().db.query(`UPDATE students SET last_name = 'Rentoul' WHERE id = $1`, [tenant.studentIds[0]]);
      for (let i = 0; i < 14; i++) {
        const res = await ctx().admin('POST', `/admin/v1/institutions/${tenant.slug}/help-requests`, {
          student_id: tenant.studentIds[i % 3],
          priority: i % 5 === 0 ? 'crisis' : 'normal',
          summary: i % 2 === 0 ? `Rent overdue ${i}` : `Timetable clash ${i}`,
        });
        assert.equal(res.statusCode, 201, res.body);
      }
      for (const order of ['crisis_first', 'newest']) {
        const path = `/admin/v1/institutions/${tenant.slug}/help-requests`;
        const orderQuery = order === 'crisis_first' ? '&order=crisis_first' : '';
        const all = (await ctx().admin('GET', `${path}?limit=100${orderQuery}`)).json().items as {
          id: string;
          summary: string;
          student: { id: string } | null;
        }[];
        const expected = all
          .filter((r) => /rent/i.test(r.summary) || r.student?.id === tenant.studentIds[0])
          .map((r) => r.id);
        assert.equal(expected.length, 9, 'seven by their text, two more by their student');
        const seen: string[] = [];
        let cursor = '';
        for (let pages = 0; pages < 10; pages++) {
          const res = await ctx().admin('GET', `${path}?q=rent&limit=2${orderQuery}${cursor}`);
          assert.equal(res.statusCode, 200, res.body);
          seen.push(...(res.json().items as { id: string }[]).map((r) => r.id));
          if (!res.json().next_cursor) break;
          cursor = `&cursor=${encodeURIComponent(res.json().next_cursor)}`;
        }
        assert.deepEqual(seen, expected, order);
      }
    });

    test('the console inbox: words for category and priority, time waiting, overdue marked, search kept', async () => {
      const { tenant, ids } = await tenantWithRequests();
      const browser = await personBrowser(ctx(), tenant, { roles: ['staff'] });
      clock.advance(20 * MINUTE);
      const page = await browser.request('GET', `/console/${tenant.slug}/inbox`);
      assert.equal(page.statusCode, 200);
      const body = page.body;
      assert.match(body, /Money and fees/);
      assert.match(body, /Housing and accommodation/);
      assert.doesNotMatch(body, />academic</);
      assert.match(body, /<span class="badge high">Urgent<\/span>/);
      // The crisis request has waited 20 minutes against 15: overdue; the urgent one is within 4 h.
      const crisisRow = body.slice(body.indexOf(`data-crisis-id="${ids.crisis}"`));
      assert.match(
        crisisRow.slice(0, 3000),
        /20 min <span class="muted">\(target 15 min\)<\/span>\s*<br><span class="badge bad">Overdue<\/span>/,
      );
      assert.match(body, /20 min <span class="muted">\(target 4 h\)<\/span>/);
      assert.match(body, /id="inbox-announce"[^>]*aria-live="assertive"/);
      assert.match(body, new RegExp(`data-live="/console/${tenant.slug}/inbox/rows\\?"`));

      const searched = await browser.request(
        'GET',
        `/console/${tenant.slug}/inbox?q=okonkwo&category=financial&priority=normal`,
      );
      assert.match(searched.body, /Tuition payment plan/);
      assert.doesNotMatch(searched.body, /Mould in my flat/);
      assert.match(searched.body, /id="f-q" name="q" type="search" value="okonkwo"/);
      assert.match(searched.body, /<option value="financial" selected>Money and fees<\/option>/);
      assert.match(
        searched.body,
        new RegExp(
          `data-live="/console/${tenant.slug}/inbox/rows\\?priority=normal&amp;category=financial&amp;q=okonkwo"`,
        ),
      );

      const short = await browser.request('GET', `/console/${tenant.slug}/inbox?q=ok`);
      assert.ok(short.statusCode < 500);
      assert.match(short.body, /search for 3 to 200 characters/);
      const odd = await browser.request('GET', `/console/${tenant.slug}/inbox?category=academia`);
      assert.equal(odd.statusCode, 400);
      assert.match(odd.body, /“academia” is not a category this list offers/);
    });

    test('the live rows: the same filters without the page around them; a new crisis request is in them', async () => {
      const { tenant } = await tenantWithRequests();
      const browser = await personBrowser(ctx(), tenant, { roles: ['staff'] });
      // The rows are a fragment without the layout: the escalation banner is not read for them
      // (one query less each refresh), as it is for every page.
      // Counted at the database: the banner's one read of open escalations.
      const db = ctx().db;
      const query = db.query;
      let banners = 0;
      db.query = ((sql: string, params?: unknown[]) => {
        if (sql.includes('SELECT e.escalated_at FROM help_request_escalations e')) banners++;
        return query.call(db, sql, params);
      }) as typeof db.query;
      let rows: Awaited<ReturnType<typeof browser.request>>;
      try {
        rows = await browser.request('GET', `/console/${tenant.slug}/inbox/rows?priority=crisis`);
        assert.equal(banners, 0, 'not read for the live rows');
        await browser.request('GET', `/console/${tenant.slug}/inbox?priority=crisis`);
        assert.equal(banners, 1, 'read for the page');
      } finally {
        db.query = query;
      }
      assert.equal(rows.statusCode, 200);
      assert.doesNotMatch(rows.body, /<html|<nav|Skip to content/);
      assert.equal(rows.headers['cache-control'], 'no-store');
      const before = (rows.body.match(/data-crisis-id=/g) ?? []).length;
      assert.equal(before, 1);
      const created = await createHelpRequest(ctx(), tenant, { priority: 'crisis', summary: 'Help now' });
      const again = await browser.request('GET', `/console/${tenant.slug}/inbox/rows?priority=crisis`);
      assert.match(again.body, new RegExp(`data-crisis-id="${created.id}"`));
      assert.doesNotMatch(again.body, /Mould in my flat/, 'the filters hold');
      // Signed out, a student, another institution: as every inbox page.
      const anonymous = await ctx().request({ method: 'GET', url: `/console/${tenant.slug}/inbox/rows` });
      assert.equal(anonymous.statusCode, 303);
      const other = await seedHelpdesk(ctx());
      assert.equal((await browser.request('GET', `/console/${other.slug}/inbox/rows`)).statusCode, 404);
    });
  },
  { clock },
);
