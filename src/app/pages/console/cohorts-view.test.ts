import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  type Cohort,
  CohortChangeBody,
  NewCohortBody,
  NewInstitutionBody,
} from '../../../domain/institutions/schemas.ts';
import { checkForm } from '../form-check.ts';
import {
  cohortFields,
  cohortInput,
  cohortsView,
  cohortValues,
  cohortView,
  firstPushCommands,
} from './cohorts-view.ts';
import { institutionFields, institutionInput, institutionsView, institutionValues } from './operator-view.ts';

const cohort: Cohort = {
  id: '0d9a3c1e-7b2f-4e6a-8c5d-3f1e2a4b6c8d',
  institution_id: '1d9a3c1e-7b2f-4e6a-8c5d-3f1e2a4b6c8d',
  name: 'Cohort A',
  clock: 'individual',
  start_date: null,
  created_at: new Date('2026-03-04T10:00:00Z'),
  archived_at: null,
};

test('a cohort form: no clock keeps it, an empty start date clears it', () => {
  const values = cohortValues({ name: ' Spring ', clock: '', start_date: '' });
  assert.deepEqual(values, { name: 'Spring', clock: '', start_date: '' });
  assert.deepEqual(cohortInput(values), { name: 'Spring', start_date: null });
  assert.deepEqual(cohortInput({ name: 'S', clock: 'cohort', start_date: '2026-09-07' }), {
    name: 'S',
    clock: 'cohort',
    start_date: '2026-09-07',
  });
  const bad = checkForm(
    NewCohortBody,
    cohortInput({ name: '', clock: 'weekly', start_date: '2026-09-077' }),
    cohortFields,
  );
  assert.equal(bad.ok, false);
  if (!bad.ok) assert.deepEqual(Object.keys(bad.errors).sort(), ['clock', 'name', 'start_date']);
  assert.equal(checkForm(CohortChangeBody, cohortInput(cohortValues({ name: 'x' })), cohortFields).ok, true);
});

test("the cohorts page carries the institution's zone; a cohort's page its values", () => {
  const page = cohortsView({ items: [cohort], paged: false }, 'Australia/Sydney');
  assert.deepEqual(page.timeZone, { value: 'Australia/Sydney' });
  assert.deepEqual(page.values, { name: '', clock: 'cohort', start_date: '' });
  const one = cohortView(cohort);
  assert.equal(one.title, 'Cohort A');
  assert.deepEqual(one.values, { name: 'Cohort A', clock: 'individual', start_date: '' });
});

test('the operator creates an institution: no zone given is left to the domain (UTC)', () => {
  const values = institutionValues({ slug: 'uni', name: 'Uni', time_zone: '' });
  assert.deepEqual(institutionInput(values), { slug: 'uni', name: 'Uni' });
  const bad = checkForm(
    NewInstitutionBody,
    institutionInput({ slug: 'Not A Slug', name: '', time_zone: '' }),
    institutionFields,
  );
  assert.equal(bad.ok, false);
  if (!bad.ok) assert.deepEqual(Object.keys(bad.errors).sort(), ['name', 'slug']);
  assert.deepEqual(institutionsView({ items: [], paged: false }).values, {
    slug: '',
    name: '',
    time_zone: 'UTC',
  });
});

test("a cohort's first push: the ssp dry run and the same request with curl, at the service's address", () => {
  const commands = firstPushCommands('6f1c2d4e-0000-4000-8000-000000000001', 'https://ssp.example.edu/');
  assert.equal(
    commands.ssp,
    'SSP_URL=https://ssp.example.edu SSP_ROSTER_SECRET=ssp_roster_… npx ssp push roster --cohort 6f1c2d4e-0000-4000-8000-000000000001 roster.csv --dry-run',
  );
  assert.match(commands.curl, /^curl -X POST https:\/\/ssp\.example\.edu\/api\/sis\/sync/);
  const body = /-d '(.*)'$/.exec(commands.curl)?.[1];
  assert.deepEqual(JSON.parse(body ?? '{}').cohort_id, '6f1c2d4e-0000-4000-8000-000000000001');
  assert.equal(JSON.parse(body ?? '{}').dry_run, true);
});
