// The inbox search's three ways of reading a page (src/domain/helpdesk/queries.ts,
// selectRequestPage): a rare term from the trigram indexes, a common one by walking the listing's
// order, and a common one whose matches lie beyond the walk from the trigram indexes again. Each
// way, forced here by small bounds, pages through exactly what the others do, in both orders,
// with filters.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { searchPattern } from '../../src/domain/helpdesk/search.ts';
import { type SearchBounds, selectRequestPage } from '../../src/domain/helpdesk/sql/request-page.ts';
import type { CursorKey } from '../../src/lib/cursor.ts';
import { describeEachDatabase } from '../helpers/app.ts';
import { seedHelpdesk } from '../helpers/helpdesk.ts';

describeEachDatabase('inbox search: every way reads the same pages', (ctx) => {
  test('rare, walked, walked past its bound: the same pages in both orders, with and without filters', async () => {
    // "rent" is in half the requests' text, the oldest ones, and in the name of the first student
    // (Rentoul): a common term whose matches are not where the walk starts.
    const tenant = await seedHelpdesk(ctx(), { students: 3 });
    await ctx().db.query(`UPDATE students SET last_name = 'Rentoul' WHERE id = $1`, [tenant.studentIds[0]]);
    for (let i = 0; i < 24; i++) {
      const res = await ctx().admin('POST', `/admin/v1/institutions/${tenant.slug}/help-requests`, {
        student_id: tenant.studentIds[i % 3],
        priority: i % 5 === 0 ? 'crisis' : 'normal',
        category: i % 2 === 0 ? 'financial' : 'academic',
        summary: i < 12 ? `Rent overdue ${i}` : `Timetable clash ${i}`,
      });
      assert.equal(res.statusCode, 201, res.body);
    }
    const pages = async (filter: Record<string, unknown>, bounds?: SearchBounds) => {
      const seen: string[][] = [];
      let after: CursorKey | undefined;
      for (let n = 0; n < 30; n++) {
        const page = await selectRequestPage(
          ctx().db,
          tenant.institutionId,
          { limit: 3, after, crisisFirst: false, ...filter },
          bounds,
        );
        seen.push(page.items.map((r) => r.id));
        if (!page.next) break;
        after = page.next;
      }
      return seen;
    };
    for (const crisisFirst of [true, false])
      for (const category of [undefined, 'financial']) {
        const filter = { crisisFirst, category, search: searchPattern('rent') };
        const rare = await pages(filter);
        assert.ok(rare.flat().length >= 8, 'the term is found by text and by student');
        assert.deepEqual(
          await pages(filter, { rare: 0, walk: 10_000 }),
          rare,
          `walked ${crisisFirst} ${category}`,
        );
        assert.deepEqual(
          await pages(filter, { rare: 0, walk: 4 }),
          rare,
          `past the walk ${crisisFirst} ${category}`,
        );
        const none = { ...filter, search: searchPattern('zzzz') };
        assert.deepEqual(await pages(none, { rare: 0, walk: 4 }), [[]]);
      }
  });
});
