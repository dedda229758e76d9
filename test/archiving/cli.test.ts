// `ssp` and archiving (docs/archiving.md): the operator archives and restores with the CLI, and
// `ssp push` into an archived cohort or institution stops with the code and the sentence.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { pushInProcess, scratchDir, writeCsv } from '../cli/push-helpers.ts';
import { seedTenant } from '../helpers/app.ts';
import { cliServer } from '../helpers/cli.ts';

const server = cliServer();

test('ssp push stops with cohort_archived and institution_archived; ssp archives and restores', async () => {
  const tenant = await seedTenant(server.ctx);
  const dir = scratchDir();
  writeCsv(dir, 'roster.csv', [
    ['email', 'student_id_ext'],
    ['ada@example.edu', 'S1'],
  ]);
  writeCsv(dir, 'programs.csv', [
    ['program_code', 'name'],
    ['BN', 'Nursing'],
  ]);
  // Each push with a state file of its own: a refused push is not one to resume.
  let pushes = 0;
  const state = () => ['--state', path.join(dir, `state-${++pushes}.json`)];
  const push = (...args: string[]) =>
    pushInProcess(server.url, tenant.rosterSecret, dir, [...args, ...state()]);
  const roster = () => push('roster', '--cohort', tenant.cohortId, 'roster.csv');
  const taxonomy = () => push('taxonomy', '--institution', tenant.slug, '--programs', 'programs.csv');

  const archivedCohort = await server.ssp('cohorts', 'archive', tenant.slug, tenant.cohortId);
  assert.ok(archivedCohort.archived_at);
  const refused = await roster();
  assert.equal(refused.code, 65, refused.stdout);
  assert.match(refused.stderr, /409 cohort_archived: the cohort "Cohort A" was archived on \d{4}-\d\d-\d\d/);
  await server.ssp('cohorts', 'restore', tenant.slug, tenant.cohortId);
  assert.equal((await roster()).code, 0);

  const archived = await server.ssp('institutions', 'archive', tenant.slug);
  assert.ok(archived.archived_at);
  const listed = await server.ssp('institutions', 'list', '--archived', 'true', '--limit', '1000');
  assert.ok(listed.items.some((i: { slug: string }) => i.slug === tenant.slug));
  for (const push of [roster, taxonomy]) {
    const result = await push();
    assert.equal(result.code, 65, result.stdout);
    assert.match(
      result.stderr,
      /409 institution_archived: the institution ".*" was archived on .* by the operator/,
    );
  }
  const restored = await server.ssp('institutions', 'restore', tenant.slug);
  assert.equal(restored.archived_at, null);
  assert.equal((await taxonomy()).code, 0);
});
