import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { recordRun } from '../../src/domain/runs/runs.ts';
import { describeEachDatabase, seedTenant } from '../helpers/app.ts';

describeEachDatabase('run history', (ctx) => {
  test('lists runs newest first and reads one with its errors; other tenants see nothing', async () => {
    const tenant = await seedTenant(ctx());
    const other = await seedTenant(ctx());
    const errors = Array.from({ length: 1005 }, (_, row) => ({ row, message: 'email is required' }));
    const first = await recordRun(ctx().db, {
      institutionId: tenant.institutionId,
      kind: 'roster',
      credential: 'institution_secret',
      cohortId: tenant.cohortId,
      dryRun: true,
      received: 1010,
      counts: { would_create: 5, would_update: 0 },
      errors,
      startedAt: new Date('2026-01-01T00:00:00Z'),
    });
    const second = await recordRun(ctx().db, {
      institutionId: tenant.institutionId,
      kind: 'enrolments',
      credential: 'bootstrap_secret',
      sections: ['programs', 'campuses'],
      dryRun: false,
      received: 2,
      counts: { programs: { created: 1 } },
      errors: [],
      startedAt: new Date('2026-01-02T00:00:00Z'),
    });

    const list = await ctx().admin('GET', `/admin/v1/institutions/${tenant.slug}/runs`);
    assert.equal(list.statusCode, 200);
    assert.deepEqual(
      list.json().items.map((r: { id: string }) => r.id),
      [second, first],
    );
    const rosterOnly = await ctx().admin('GET', `/admin/v1/institutions/${tenant.slug}/runs?kind=roster`);
    assert.deepEqual(
      rosterOnly.json().items.map((r: { id: string }) => r.id),
      [first],
    );

    const one = await ctx().admin('GET', `/admin/v1/institutions/${tenant.slug}/runs/${first}`);
    assert.equal(one.statusCode, 200);
    const run = one.json();
    assert.equal(run.error_count, 1005);
    assert.equal(run.errors.length, 1000);
    assert.equal(run.errors_truncated, true);
    assert.equal(run.cohort_id, tenant.cohortId);
    assert.equal(run.credential, 'institution_secret');

    const foreign = await ctx().admin('GET', `/admin/v1/institutions/${other.slug}/runs/${first}`);
    assert.equal(foreign.statusCode, 404);
    const notUuid = await ctx().admin('GET', `/admin/v1/institutions/${tenant.slug}/runs/not-a-uuid`);
    assert.equal(notUuid.statusCode, 404);
    const otherList = await ctx().admin('GET', `/admin/v1/institutions/${other.slug}/runs`);
    assert.deepEqual(otherList.json().items, []);
  });

  test('from/to days and has_errors are exact over the whole history and page by cursor', async () => {
    const tenant = await seedTenant(ctx());
    // 12 runs, two a day from 2026-03-01 (06:00 and 23:30 UTC); every third has row errors.
    const made: { id: string; day: string; errors: boolean }[] = [];
    for (let i = 0; i < 12; i += 1) {
      const day = `2026-03-0${1 + Math.floor(i / 2)}`;
      const errors = i % 3 === 0 ? [{ row: 1, message: 'email is required' }] : [];
      const id = await recordRun(ctx().db, {
        institutionId: tenant.institutionId,
        kind: 'roster',
        credential: 'institution_secret',
        dryRun: false,
        received: 1,
        counts: {},
        errors,
        startedAt: new Date(`${day}T${i % 2 === 0 ? '06:00' : '23:30'}:00Z`),
      });
      made.push({ id, day, errors: errors.length > 0 });
    }
    const newest = [...made].reverse();
    const readAll = async (query: string) => {
      const ids: string[] = [];
      let cursor: string | null = null;
      do {
        const res = await ctx().admin(
          'GET',
          `/admin/v1/institutions/${tenant.slug}/runs?${query}&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        );
        assert.equal(res.statusCode, 200, res.body);
        ids.push(...res.json().items.map((r: { id: string }) => r.id));
        cursor = res.json().next_cursor;
      } while (cursor);
      return ids;
    };
    const expect = (keep: (run: (typeof made)[number]) => boolean) => newest.filter(keep).map((r) => r.id);
    assert.deepEqual(
      await readAll('from=2026-03-02&to=2026-03-02'),
      expect((r) => r.day === '2026-03-02'),
    );
    assert.deepEqual(
      await readAll('from=2026-03-02&to=2026-03-04'),
      expect((r) => r.day >= '2026-03-02' && r.day <= '2026-03-04'),
    );
    assert.deepEqual(
      await readAll('from=2026-03-05'),
      expect((r) => r.day >= '2026-03-05'),
    );
    assert.deepEqual(
      await readAll('to=2026-03-01'),
      expect((r) => r.day <= '2026-03-01'),
    );
    assert.deepEqual(
      await readAll('has_errors=true'),
      expect((r) => r.errors),
    );
    assert.deepEqual(
      await readAll('has_errors=true&from=2026-03-02&to=2026-03-05&kind=roster'),
      expect((r) => r.errors && r.day >= '2026-03-02' && r.day <= '2026-03-05'),
    );
    assert.deepEqual(
      await readAll('has_errors=false'),
      expect(() => true),
    );
    assert.deepEqual(await readAll('kind=enrolments&has_errors=true'), []);
  });

  test('bad day or error filters are a 400 naming the field, never a 5xx (property)', async () => {
    const tenant = await seedTenant(ctx());
    const base = `/admin/v1/institutions/${tenant.slug}/runs`;
    for (const [query, field] of [
      ['from=2026-02-30', 'from'],
      ['to=26-1-1', 'to'],
      ['from=2026-03-02&to=2026-03-01', 'to'],
      ['from=0000-01-01', 'from'],
    ]) {
      const res = await ctx().admin('GET', `${base}?${query}`);
      assert.equal(res.statusCode, 400, query);
      assert.equal(res.json().error, 'invalid_field');
      assert.equal(res.json().field, field);
    }
    for (const query of [
      'from=0001-01-01&to=9999-12-31',
      'to=9999-12-31',
      'from=9999-12-31',
      'to=0001-01-01',
    ]) {
      const res = await ctx().admin('GET', `${base}?${query}`);
      assert.equal(res.statusCode, 200, `${query}: ${res.body}`);
    }
    const value = fc.oneof(
      fc.string({ maxLength: 12 }),
      fc.date({ noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10)),
      fc.constantFrom('true', 'false', '1', 'yes', '9999-12-31', '0001-01-01', '2026-13-01'),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.record({ from: value, to: value, has_errors: value, kind: value }, { requiredKeys: [] }),
        async (query) => {
          const res = await ctx().admin('GET', `${base}?${new URLSearchParams(query).toString()}`);
          assert.ok(res.statusCode === 200 || res.statusCode === 400, `${res.statusCode} ${res.body}`);
          if (res.statusCode === 400) assert.equal(res.json().error, 'invalid_field', res.body);
        },
      ),
      { numRuns: 60 },
    );
  });

  test('runs per day: counts and sums of the runs started on each day, exact', async () => {
    const tenant = await seedTenant(ctx());
    const base = `/admin/v1/institutions/${tenant.slug}/runs/daily`;
    const run = (
      startedAt: string,
      kind: 'roster' | 'enrolments',
      counts: Record<string, unknown>,
      errors: number,
      dryRun = false,
    ) =>
      recordRun(ctx().db, {
        institutionId: tenant.institutionId,
        kind,
        credential: 'institution_secret',
        dryRun,
        received: 1,
        counts,
        errors: Array.from({ length: errors }, (_, row) => ({ row })),
        startedAt: new Date(startedAt),
      });
    await run('2026-05-01T00:00:00Z', 'roster', { created: 2, updated: 3 }, 1);
    await run('2026-05-01T23:59:59Z', 'roster', { created: 5, updated: 'n/a' }, 0);
    // A roster run's identical rows are not updates; an enrolments push sums its sections; a dry
    // run is counted apart.
    await run('2026-05-01T12:00:00Z', 'roster', { created: 0, updated: 4, unchanged: 4 }, 0);
    await run(
      '2026-05-03T12:00:00Z',
      'enrolments',
      { programs: { created: 1 }, campuses: { created: 2, updated: 1 } },
      4,
    );
    await run('2026-05-03T13:00:00Z', 'roster', { created: 0, updated: 0, would_create: 9 }, 5, true);
    await run('2026-05-04T00:00:00Z', 'roster', { created: 7 }, 0);
    const res = await ctx().admin('GET', `${base}?from=2026-05-01&to=2026-05-03`);
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json().items, [
      { day: '2026-05-01', pushes: 3, created: 7, updated: 3, errors: 1, dry_runs: 0, dry_run_errors: 0 },
      { day: '2026-05-03', pushes: 1, created: 3, updated: 1, errors: 4, dry_runs: 1, dry_run_errors: 5 },
    ]);
    const roster = await ctx().admin('GET', `${base}?from=2026-05-01&to=2026-05-04&kind=roster`);
    assert.deepEqual(
      roster.json().items.map((d: { day: string; pushes: number }) => [d.day, d.pushes]),
      [
        ['2026-05-01', 3],
        ['2026-05-03', 0],
        ['2026-05-04', 1],
      ],
    );
    for (const query of [
      'from=2026-05-01',
      'from=2025-01-01&to=2026-05-01',
      'from=2026-05-02&to=2026-05-01',
    ]) {
      const bad = await ctx().admin('GET', `${base}?${query}`);
      assert.equal(bad.statusCode, 400, query);
      assert.ok(['missing_field', 'invalid_field'].includes(bad.json().error), bad.body);
    }
  });
});
