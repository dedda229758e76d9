// Section 1's suggested integration order, played end to end as an SIS would:
// (a) one real enrolments call with programs, campuses, calendar and units; (b) dry-run the
// roster; (c) push the roster in pages; (d) inspect errors; (e) a nightly full push; then
// enrolments, which need both students and units.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachDatabase, seedTenant } from '../helpers/app.ts';

describeEachDatabase('integration order of section 1', (ctx) => {
  test('taxonomy, roster dry run, paged roster, nightly full push, enrolments', async () => {
    const tenant = await seedTenant(ctx());
    const sis = (url: string, body: Record<string, unknown>) =>
      ctx().request({ method: 'POST', url, token: tenant.rosterSecret, body });
    const enrolments = (body: Record<string, unknown>) =>
      sis('/api/sis/enrolments', { institution: tenant.slug, ...body });
    const roster = (body: Record<string, unknown>) =>
      sis('/api/sis/sync', { cohort_id: tenant.cohortId, ...body });

    // Before the calendar exists, a dry run of enrolments reports the term as not found.
    const early = await enrolments({
      dry_run: true,
      enrolments: [{ student_id_ext: 'S1', unit_code: 'NURS101', term_code: '2026-S1' }],
    });
    assert.ok(early.json().errors.some((e: { code: string }) => e.code === 'term_not_found'));

    // (a) One real call with programs, campuses, calendar and units.
    const taxonomy = await enrolments({
      programs: [{ program_code: 'BSC-NURS', name: 'Bachelor of Nursing' }],
      campuses: [{ name: 'City' }, { name: 'Riverside' }],
      terms: [{ term_code: '2026-S1', name: 'Semester 1', start_date: '2026-02-23', end_date: '2026-06-19' }],
      units: [{ unit_code: 'NURS101', name: 'Foundations', program_code: 'BSC-NURS', campus_name: 'City' }],
    });
    assert.equal(taxonomy.statusCode, 200, taxonomy.body);
    assert.deepEqual(taxonomy.json().errors, []);
    for (const section of ['programs', 'campuses', 'terms', 'units']) {
      assert.ok(taxonomy.json().sections[section].created > 0, section);
    }

    const students = Array.from({ length: 120 }, (_, i) => ({
      email: `Student${i}@Northbridge.edu`,
      student_id_ext: `S${i}`,
      first_name: `First${i}`,
      program_code: 'bsc-nurs',
      campus_name: i % 2 ? 'city' : 'Riverside',
      start_date: '2026-02-23',
    }));
    // Two rows the SIS got wrong: no email, and an unknown campus.
    students[7] = { ...students[7], email: '' };
    students[8] = { ...students[8], campus_name: 'Atlantis' };

    // (b) Dry-run the roster: nothing is written, the problems are reported.
    const dry = await roster({ students, dry_run: true });
    assert.equal(dry.statusCode, 200, dry.body);
    assert.equal(dry.json().would_create, 119);
    assert.deepEqual(
      dry.json().unknown_campus_values.map((v: { value: string }) => v.value),
      ['Atlantis'],
    );
    assert.deepEqual(
      dry.json().errors.map((e: { row: number }) => e.row),
      [7],
    );
    const none = await ctx().admin('GET', `/admin/v1/institutions/${tenant.slug}/students`);
    assert.deepEqual(none.json().items, []);

    // (c) Push the roster in pages; (d) inspect errors on each response.
    const page1 = await roster({ students: students.slice(0, 60) });
    const page2 = await roster({ students: students.slice(60) });
    assert.equal(page1.json().imported, 59);
    assert.deepEqual(
      page1.json().errors.map((e: { row: number }) => e.row),
      [7],
    );
    assert.equal(page2.json().imported, 60);

    // The SIS corrects row 7 and the campus of row 8; the re-send fills the blanks in place.
    students[7] = { ...students[7], email: 'student7@northbridge.edu' };
    students[8] = { ...students[8], campus_name: 'City' };
    const fixed = await roster({ students: students.slice(0, 60) });
    assert.equal(fixed.json().created, 1);
    assert.equal(fixed.json().updated, 59);
    assert.deepEqual(fixed.json().errors, []);
    const s8 = await ctx().admin(
      'GET',
      `/admin/v1/institutions/${tenant.slug}/students?email=student8@northbridge.edu`,
    );
    assert.equal(s8.json().items[0].campus_name, 'City');
    assert.equal(s8.json().items[0].program_code, 'BSC-NURS');

    // (e) The nightly full push: student 119 has left upstream.
    const nightly = [students.slice(0, 60), students.slice(60, 119)];
    const first = await roster({ students: nightly[0], sync_id: 'nightly-2026-03-01' });
    const final = await roster({ students: nightly[1], sync_id: 'nightly-2026-03-01', final_page: true });
    assert.equal(first.json().full_sync.status, 'open');
    assert.equal(final.json().full_sync.status, 'applied');
    assert.equal(final.json().full_sync.departures, 1);

    // Enrolments need students and units: dry run first (term exists now), then for real.
    const rows = students.slice(0, 10).map((s, i) => ({
      ...(i % 2 ? { email: s.email } : { student_id_ext: s.student_id_ext }),
      unit_code: 'NURS101',
      term_code: '2026-S1',
    }));
    const enrolDry = await enrolments({ dry_run: true, enrolments: rows });
    assert.deepEqual(enrolDry.json().errors, []);
    assert.equal(enrolDry.json().sections.enrolments.created, 10);
    const enrolReal = await enrolments({ enrolments: rows });
    assert.equal(enrolReal.json().sections.enrolments.created, 10);
    const listed = await ctx().admin('GET', `/admin/v1/institutions/${tenant.slug}/enrolments`);
    assert.equal(listed.json().items.length, 10);

    // Every call is in the run history, newest first.
    const runs = await ctx().admin('GET', `/admin/v1/institutions/${tenant.slug}/runs?limit=100`);
    assert.equal(runs.json().items.length, 10);
    assert.equal(runs.json().items[0].id, enrolReal.json().run_id);
  });
});
