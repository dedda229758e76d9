// The ssp listing commands of the enrolment feed, against a real listening server.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachDatabase, seedTenant } from '../helpers/app.ts';
import { runSsp } from '../helpers/cli.ts';
import { pushEnrolments } from '../helpers/roster.ts';
import { insertStudents } from '../helpers/students.ts';

describeEachDatabase('ssp terms, units, enrolments', (ctx) => {
  test('list what the feed stored, with filters', async () => {
    const tenant = await seedTenant(ctx());
    await insertStudents(ctx().db, tenant, [{ email: 'c@example.edu', student_id_ext: 'C1' }]);
    const push = await pushEnrolments(ctx(), tenant, {
      programs: [{ program_code: 'ART' }],
      terms: [{ term_code: 'T1', start_date: '2026-01-05', end_date: '2026-04-05' }],
      units: [{ unit_code: 'ART1', program_code: 'ART' }, { unit_code: 'ART2' }],
      enrolments: [{ email: 'c@example.edu', unit_code: 'ART1', term_code: 'T1', status: 'withdrawn' }],
    });
    assert.deepEqual(push.json().errors, []);
    const address = await ctx().app.listen({ port: 0, host: '127.0.0.1' });
    const ssp = async (...args: string[]) => JSON.parse(await runSsp(address, args));
    assert.deepEqual(
      (await ssp('terms', tenant.slug)).items.map((t: { term_code: string }) => t.term_code),
      ['T1'],
    );
    assert.deepEqual(
      (await ssp('units', tenant.slug, '--program', 'art')).items.map(
        (u: { unit_code: string }) => u.unit_code,
      ),
      ['ART1'],
    );
    const enrolments = await ssp(
      'enrolments',
      tenant.slug,
      '--term',
      'T1',
      '--status',
      'withdrawn',
      '--limit',
      '10',
    );
    assert.deepEqual(
      enrolments.items.map((e: { email: string; unit_code: string }) => [e.email, e.unit_code]),
      [['c@example.edu', 'ART1']],
    );
    assert.equal(enrolments.next_cursor, null);
  });
});
