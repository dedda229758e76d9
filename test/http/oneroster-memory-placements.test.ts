// The OneRoster memory's placements and staged writes (POST /api/sis/oneroster/memory/placements,
// /memory with `push`, /memory/commit): what a page of enrollments placed, only from the
// institution's own memory; entries staged for a push invisible until it commits, then current
// all together; bad input a 4xx with a stable code; any list of ids answered, never a 5xx.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import fc from 'fast-check';
import { describeEachDatabase, type SeededTenant, seedTenant, type TestContext } from '../helpers/app.ts';

const placed = (student: string, unit: string, term: string) => ({ student, unit, term });

describeEachDatabase('the OneRoster memory: placements and staged writes', (context: () => TestContext) => {
  const post = (tenant: SeededTenant, what: string, body: unknown, secret = tenant.rosterSecret) =>
    context().request({ method: 'POST', url: `/api/sis/oneroster/memory${what}`, body, token: secret });
  const write = async (tenant: SeededTenant, entries: unknown[], push?: string) => {
    const r = await post(tenant, '', { institution: tenant.slug, entries, ...(push ? { push } : {}) });
    assert.equal(r.statusCode, 200, r.body);
    return r.json();
  };
  const placements = async (tenant: SeededTenant, ids: string[]) => {
    const r = await post(tenant, '/placements', { institution: tenant.slug, sourced_ids: ids });
    assert.equal(r.statusCode, 200, r.body);
    return (r.json().placements as { sourced_id: string }[]).sort((a, b) =>
      a.sourced_id < b.sourced_id ? -1 : 1,
    );
  };
  const enrollment = (id: string, data: unknown) => ({ kind: 'enrollment', sourced_id: id, data });

  test("what each enrollment placed, from the institution's own memory only", async () => {
    const a = await seedTenant(context());
    const b = await seedTenant(context());
    await write(a, [
      enrollment('e-1', placed('S1', 'U1', 'T1')),
      enrollment('e-2', placed('S2', 'U2', 'T1')),
      { kind: 'class', sourced_id: 'e-3', data: { unit: 'U3', term: 'T1' } },
    ]);
    await write(b, [enrollment('e-9', placed('S9', 'U9', 'T9'))]);
    assert.deepEqual(await placements(a, ['e-2', 'e-1', 'e-1', 'e-3', 'e-9', 'nope']), [
      { sourced_id: 'e-1', ...placed('S1', 'U1', 'T1') },
      { sourced_id: 'e-2', ...placed('S2', 'U2', 'T1') },
    ]);
    // Another institution's memory answers nothing, and its secret opens nothing of this one.
    assert.deepEqual(await placements(b, ['e-1', 'e-2']), []);
    const refused = await post(
      a,
      '/placements',
      { institution: a.slug, sourced_ids: ['e-1'] },
      b.rosterSecret,
    );
    assert.equal(refused.statusCode, 401, refused.body);
    assert.deepEqual(await placements(a, []), []);
  });

  test('bad input is a 4xx with a stable code', async () => {
    const a = await seedTenant(context());
    const cases: [unknown, number, string][] = [
      [{ institution: a.slug }, 400, 'missing_field'],
      [{ institution: a.slug, sourced_ids: 'e-1' }, 400, 'invalid_field'],
      [{ institution: a.slug, sourced_ids: [''] }, 400, 'invalid_field'],
      [{ institution: a.slug, sourced_ids: ['e\u00001'] }, 400, 'invalid_field'],
      [{ institution: a.slug, sourced_ids: [7] }, 400, 'invalid_field'],
      [{ institution: a.slug, sourced_ids: ['x'.repeat(1001)] }, 400, 'invalid_field'],
    ];
    for (const [body, status, code] of cases) {
      const r = await post(a, '/placements', body);
      assert.equal(r.statusCode, status, `${JSON.stringify(body).slice(0, 80)}: ${r.body}`);
      assert.equal(r.json().error, code, r.body);
    }
    // A field the endpoint does not take is named as such on every memory route, as on every feed.
    for (const [path, body, field, suggestion] of [
      ['/placements', { institution: a.slug, sourced_ids: [], after: 'e-1' }, 'after', undefined],
      ['/placements', { institution: a.slug, sourced_id: [] }, 'sourced_id', 'sourced_ids'],
      ['/read', { institution: a.slug, limt: 10 }, 'limt', 'limit'],
      ['', { institution: a.slug, entrys: [] }, 'entrys', 'entries'],
      ['/commit', { institution: a.slug, push: crypto.randomUUID(), dry_run: true }, 'dry_run', undefined],
    ] as const) {
      const r = await post(a, path, body);
      assert.equal(r.statusCode, 400, `${path}: ${r.body}`);
      assert.equal(r.json().error, 'unknown_field', r.body);
      assert.equal(r.json().field, field, r.body);
      assert.equal(r.json().suggestion, suggestion, r.body);
    }
    const many = await post(a, '/placements', {
      institution: a.slug,
      sourced_ids: Array.from({ length: 5001 }, (_, i) => `e-${i}`),
    });
    assert.ok([400, 413].includes(many.statusCode), many.body);
    const commit = await post(a, '/commit', { institution: a.slug, push: 'not-a-uuid' });
    assert.equal(commit.statusCode, 400, commit.body);
    const staged = await post(a, '', { institution: a.slug, entries: [], push: 'not-a-uuid' });
    assert.equal(staged.statusCode, 400, staged.body);
    const other = await post(a, '/placements', { institution: 'no-such-institution', sourced_ids: [] });
    assert.ok([401, 404].includes(other.statusCode), other.body);
  });

  test('entries staged for a push are made current by its commit, all together, and by no other', async () => {
    const a = await seedTenant(context());
    const b = await seedTenant(context());
    await write(a, [
      enrollment('e-1', placed('S1', 'U1', 'T1')),
      enrollment('e-2', placed('S2', 'U2', 'T1')),
    ]);
    const push = randomUUID();
    assert.deepEqual(
      await write(
        a,
        [
          enrollment('e-1', placed('S1', 'U5', 'T1')),
          enrollment('e-2', null),
          enrollment('e-3', placed('S3', 'U3', 'T1')),
        ],
        push,
      ),
      { stored: 2, forgotten: 1 },
    );
    const before = [
      { sourced_id: 'e-1', ...placed('S1', 'U1', 'T1') },
      { sourced_id: 'e-2', ...placed('S2', 'U2', 'T1') },
    ];
    // Staged: not the memory yet (a push that fails leaves it as it was).
    assert.deepEqual(await placements(a, ['e-1', 'e-2', 'e-3']), before);
    // Another institution committing the same id makes nothing of this one current.
    const elsewhere = await post(b, '/commit', { institution: b.slug, push });
    assert.deepEqual(elsewhere.json(), { stored: 0, forgotten: 0 });
    assert.deepEqual(await placements(a, ['e-1', 'e-2', 'e-3']), before);
    // Another push's commit neither.
    await post(a, '/commit', { institution: a.slug, push: randomUUID() });
    assert.deepEqual(await placements(a, ['e-1', 'e-2', 'e-3']), before);

    const committed = await post(a, '/commit', { institution: a.slug, push });
    assert.equal(committed.statusCode, 200, committed.body);
    assert.deepEqual(committed.json(), { stored: 2, forgotten: 1 });
    assert.deepEqual(await placements(a, ['e-1', 'e-2', 'e-3']), [
      { sourced_id: 'e-1', ...placed('S1', 'U5', 'T1') },
      { sourced_id: 'e-3', ...placed('S3', 'U3', 'T1') },
    ]);
    // Committed once: again it answers zeros and changes nothing.
    assert.deepEqual((await post(a, '/commit', { institution: a.slug, push })).json(), {
      stored: 0,
      forgotten: 0,
    });
    const { rows } = await context().db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM oneroster_memory_staged WHERE institution_id = $1',
      [a.institutionId],
    );
    assert.equal(rows[0].n, 0, 'nothing staged is left behind');
  });

  test('any list of ids is answered with exactly those the memory holds, never a 5xx', async () => {
    const a = await seedTenant(context());
    const stored = ['e-1', 'É-2', 'e 3', "e'4", 'e"5', '\ud83d\ude00'];
    await write(
      a,
      stored.map((id, i) => enrollment(id, placed(`S${i}`, 'U', 'T'))),
    );
    const id = fc.oneof(
      fc.constantFrom(...stored),
      fc.string({ unit: 'binary', minLength: 1, maxLength: 12 }),
      fc.constantFrom('\u0000', '\ud800', '%', '_', '*', ''),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(id, { maxLength: 30 }), async (ids) => {
        const r = await post(a, '/placements', { institution: a.slug, sourced_ids: ids });
        assert.ok(r.statusCode < 500, r.body);
        if (ids.some((i) => i === '' || i.includes('\u0000'))) {
          assert.equal(r.statusCode, 400, r.body);
          assert.equal(r.json().error, 'invalid_field');
          return;
        }
        assert.equal(r.statusCode, 200, r.body);
        const answered = (r.json().placements as { sourced_id: string }[]).map((p) => p.sourced_id).sort();
        assert.deepEqual(answered, [...new Set(ids.filter((i) => stored.includes(i)))].sort());
      }),
      { numRuns: 40 },
    );
  });
});
