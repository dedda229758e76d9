// ssp push oneroster with the service as its memory: a bulk push from one folder and a delta
// from an empty one (another machine, a fresh container) give the same state as both from one
// folder; the delta's new student takes the campus and program of orgs it does not carry, an
// enrollment moved to another class withdraws the old unit, and one tobedeleted in a class the
// delta omits withdraws what it placed. The enrollments' placements are asked page by page and
// the changes staged until the push completes: one that fails leaves the memory as it was, and a
// service without those endpoints (an older version) is read whole and written at the end. The
// memory's API refuses a bad entry by name.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { describeEachDatabase, seedTenant } from '../helpers/app.ts';
import { listeningApp } from '../helpers/cli.ts';
import {
  csvText,
  oneRosterBundle,
  pushOneRoster,
  scratchDir,
  startProxy,
  writeFolder,
} from './push-helpers.ts';

type Files = Record<string, string>;
const rowsOf = (text: string) =>
  text
    .trim()
    .split('\n')
    .map((l) => l.split(','));

/** The delta: a new student (with roles, without orgs), e-0 moved to cl-101-a, e-1 tobedeleted. */
function deltaBundle(): Files {
  const full = oneRosterBundle({ students: 6 });
  const users = rowsOf(full['users.csv']);
  const newcomer = users
    .find((r) => r[0] === 'u-1')!
    .map((v) =>
      v === 'u-1'
        ? 'u-new'
        : v === 'student1'
          ? 'newcomer'
          : v === 'S1'
            ? 'S-NEW'
            : v.replace('student1@', 'new@'),
    );
  const roles = rowsOf(full['roles.csv']);
  const enrollments = rowsOf(full['enrollments.csv']);
  const at = (id: string) => enrollments.find((r) => r[0] === id)!;
  const moved = [...at('e-0')];
  moved[3] = 'cl-101-a';
  const leaving = [...at('e-1')];
  leaving[1] = 'tobedeleted';
  const fresh = [...at('e-1')];
  fresh[0] = 'e-new';
  fresh[5] = 'u-new';
  fresh[3] = 'cl-102-a';
  return {
    'users.csv': csvText([users[0], newcomer]),
    'roles.csv': csvText([
      roles[0],
      ['r-new', '', '2026-03-01', 'u-new', 'primary', 'student', '', '', 'org-river', ''],
      ['r-new-p', '', '2026-03-01', 'u-new', 'secondary', 'student', '', '', 'org-nurs', ''],
    ]),
    'enrollments.csv': csvText([enrollments[0], moved, leaving, fresh]),
    'manifest.csv': csvText([
      ['propertyName', 'value'],
      ['manifest.version', '1.0'],
      ['oneroster.version', '1.2'],
      ...['academicSessions', 'classes', 'courses', 'orgs'].map((f) => [`file.${f}`, 'absent']),
      ['file.users', 'delta'],
      ['file.roles', 'delta'],
      ['file.enrollments', 'delta'],
    ]),
  };
}

describeEachDatabase('ssp push oneroster: the service is the memory', (context) => {
  const server = listeningApp(context);
  const { list } = server;
  /** What a person would compare: students with their places, enrolments with their status. */
  const state = async (slug: string) => ({
    students: (await list(slug, 'students'))
      .map(
        (s: Record<string, string>) =>
          `${s.student_id_ext} ${s.first_name} ${s.program_code} ${s.campus_name} ${s.departed_at ?? ''}`,
      )
      .sort(),
    enrolments: (await list(slug, 'enrolments'))
      .map((e: Record<string, string>) => `${e.student_id_ext} ${e.unit_code} ${e.term_code} ${e.status}`)
      .sort(),
  });

  const push = async (
    tenant: { slug: string; cohortId: string; rosterSecret?: string },
    dir: string,
    files: Files,
  ) => {
    const r = await pushOneRoster(
      server.url,
      tenant,
      dir,
      writeFolder(path.join(scratchDir(), 'bundle'), files),
    );
    assert.equal(r.code, 0, `${r.stderr}\n${r.stdout}`);
    return r;
  };

  test('a bulk push from one folder and a delta from an empty one: the same state as both from one folder', async () => {
    const together = await seedTenant(server.ctx);
    const oneDir = scratchDir();
    await push(together, oneDir, oneRosterBundle({ students: 6 }));
    await push(together, oneDir, deltaBundle());

    const apart = await seedTenant(server.ctx);
    await push(apart, scratchDir(), oneRosterBundle({ students: 6 }));
    const delta = await push(apart, scratchDir(), deltaBundle());
    assert.match(delta.stdout, /1 enrollments moved to another class/);

    const expected = await state(together.slug);
    assert.deepEqual(await state(apart.slug), expected);
    // And that state is the exact one.
    assert.ok(
      expected.students.includes('S-NEW Given1 BN Riverside Campus '),
      `the new student has the campus and program of orgs the delta omits: ${expected.students}`,
    );
    const of = (who: string) => expected.enrolments.filter((e: string) => e.startsWith(`${who} `));
    assert.deepEqual(of('S0'), ['S0 NURS101 as-2026-s1 enrolled', 'S0 NURS102 as-2026-s1 withdrawn']);
    assert.deepEqual(of('S1'), ['S1 NURS101 as-2026-s1 withdrawn']);
    assert.deepEqual(of('S-NEW'), ['S-NEW NURS102 as-2026-s1 enrolled']);
  });

  test('the memory API: the roster secret of the institution, and a bad entry named', async () => {
    const tenant = await seedTenant(server.ctx);
    const other = await seedTenant(server.ctx);
    const post = (secret: string | undefined, what: string, body: unknown) =>
      server.ctx.request({
        method: 'POST',
        url: `/api/sis/oneroster/memory${what}`,
        headers: { authorization: `Bearer ${secret}` },
        body,
      });
    const refused = await post(other.rosterSecret, '/read', { institution: tenant.slug });
    assert.equal(refused.statusCode, 401);
    const bad = await post(tenant.rosterSecret, '', {
      institution: tenant.slug,
      entries: [
        { kind: 'class', sourced_id: 'cl-1', data: { unit: 'U1', term: 'T1' } },
        { kind: 'class', sourced_id: 'cl-2', data: { unit: 'U1' } },
      ],
    });
    assert.equal(bad.statusCode, 400, bad.body);
    assert.deepEqual([bad.json().error, bad.json().field], ['invalid_field', 'entries[1].data.term']);
    const good = await post(tenant.rosterSecret, '', {
      institution: tenant.slug,
      entries: [
        { kind: 'class', sourced_id: 'cl-1', data: { unit: 'U1', term: 'T1', extra: 'dropped' } },
        { kind: 'class', sourced_id: 'cl-1', data: { unit: 'U2', term: 'T1' } },
        { kind: 'user', sourced_id: 'u-1', data: { student: 'S1', orgs: ['org-a'] } },
      ],
    });
    assert.equal(good.statusCode, 200, good.body);
    const read = await post(tenant.rosterSecret, '/read', { institution: tenant.slug, limit: 1 });
    assert.equal(read.statusCode, 200, read.body);
    assert.deepEqual(read.json().entries, [
      { kind: 'class', sourced_id: 'cl-1', data: { unit: 'U2', term: 'T1' } },
    ]);
    const rest = await post(tenant.rosterSecret, '/read', {
      institution: tenant.slug,
      after: read.json().next,
    });
    assert.deepEqual(
      rest.json().entries.map((e: { sourced_id: string }) => e.sourced_id),
      ['u-1'],
    );
    assert.equal(rest.json().next, null);
    const { rows } = await server.ctx.db.query<{ student_id_ext: string }>(
      "SELECT student_id_ext FROM oneroster_memory WHERE institution_id = $1 AND kind = 'user'",
      [tenant.institutionId],
    );
    assert.deepEqual(rows, [{ student_id_ext: 'S1' }], 'the student named, for erasure');
  });
  const memoryRows = async (institutionId: string) =>
    (
      await server.ctx.db.query<{ row: string }>(
        "SELECT kind || ' ' || sourced_id || ' ' || data::text AS row FROM oneroster_memory WHERE institution_id = $1 ORDER BY 1",
        [institutionId],
      )
    ).rows.map((r) => r.row);

  test('an older service, without placements or commit: the memory is read whole and written at the end, to the same state', async () => {
    const together = await seedTenant(server.ctx);
    const oneDir = scratchDir();
    await push(together, oneDir, oneRosterBundle({ students: 6 }));
    await push(together, oneDir, deltaBundle());

    const proxy = await startProxy(server.url);
    try {
      proxy.withoutPaths(['/api/sis/oneroster/memory/placements', '/api/sis/oneroster/memory/commit']);
      const apart = await seedTenant(server.ctx);
      for (const files of [oneRosterBundle({ students: 6 }), deltaBundle()]) {
        const r = await pushOneRoster(
          proxy.url,
          apart,
          scratchDir(),
          writeFolder(path.join(scratchDir(), 'bundle'), files),
        );
        assert.equal(r.code, 0, `${r.stderr}\n${r.stdout}`);
      }
      assert.ok(!proxy.posted.some((p) => p.endsWith('/placements') || p.endsWith('/commit')));
      assert.ok(proxy.posted.includes('/api/sis/oneroster/memory'), 'written back at the end');
      assert.deepEqual(await state(apart.slug), await state(together.slug));
      assert.deepEqual(await memoryRows(apart.institutionId), await memoryRows(together.institutionId));
    } finally {
      await proxy.close();
    }
  });

  test('a push that fails before its commit leaves the memory as it was; run again, it completes', async () => {
    const tenant = await seedTenant(server.ctx);
    await push(tenant, scratchDir(), oneRosterBundle({ students: 6 }));
    const before = await memoryRows(tenant.institutionId);
    const proxy = await startProxy(server.url);
    try {
      // Everything is sent and staged; only the commit is refused.
      proxy.withoutPaths(['/api/sis/oneroster/memory/commit']);
      const failed = await pushOneRoster(
        proxy.url,
        tenant,
        scratchDir(),
        writeFolder(path.join(scratchDir(), 'bundle'), deltaBundle()),
      );
      assert.notEqual(failed.code, 0, failed.stdout);
      assert.ok(proxy.posted.includes('/api/sis/oneroster/memory/placements'), 'asked page by page');
      assert.ok(proxy.posted.includes('/api/sis/oneroster/memory'), 'staged');
    } finally {
      await proxy.close();
    }
    assert.deepEqual(await memoryRows(tenant.institutionId), before, 'the memory is as it was');
    const staged = await server.ctx.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM oneroster_memory_staged WHERE institution_id = $1',
      [tenant.institutionId],
    );
    assert.ok(staged.rows[0].n > 0, 'what the failed push staged was never made current');

    const again = await push(tenant, scratchDir(), deltaBundle());
    assert.match(again.stdout, /1 enrollments moved to another class/);
    const after = await memoryRows(tenant.institutionId);
    assert.ok(
      after.some((r) => r.startsWith('user u-new ')),
      'the new student is remembered',
    );
    assert.ok(!after.some((r) => r.startsWith('enrollment e-1 ')), 'the enrollment tobedeleted is forgotten');
    assert.ok(
      after.some((r) => r.startsWith('enrollment e-0 ') && r.includes('NURS101')),
      after.join('\n'),
    );
  });
});
