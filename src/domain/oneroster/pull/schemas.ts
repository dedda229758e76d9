// The shapes of a OneRoster source's settings, defined once: the admin API takes them as its
// request body and the console checks its form with them, so the two accept the same values.
import { Type } from 'typebox';
import { ClientCredentials, Nullable, StringEnum, Uuid } from '../../../lib/schema.ts';

const Names = (description: string) =>
  Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: 100, description });

export const Choices = {
  cohort_id: Uuid('The cohort that receives the source’s students'),
  org_ids: Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
    maxItems: 500,
    description: 'Orgs to take (sourcedIds): their students, classes and child orgs; empty: every org',
  }),
  term_types: Names('Academic session types that are terms (default term, semester)'),
  campus_org_types: Names('Org types that are campuses (default school)'),
  programs_from: StringEnum(
    ['orgs', 'grades', 'none'],
    "Programs: orgs of program_org_types, the students' grades (K-12), or none (default orgs)",
  ),
  program_org_types: Names('Org types that are programs when programs_from is orgs (default department)'),
  student_id: StringEnum(
    ['identifier', 'sourcedId', 'username'],
    'The user field that becomes student_id_ext (default identifier; a blank one falls back to sourcedId)',
  ),
  pull_every_minutes: Nullable(
    Type.Integer({
      minimum: 5,
      maximum: 10080,
      description: 'Minutes between scheduled pulls; null: on demand only',
    }),
  ),
  full_every_hours: Type.Integer({
    minimum: 1,
    maximum: 8760,
    description:
      'A scheduled pull is full (departures apply) when the last full one is older than this; otherwise a delta',
  }),
};

export const SourceBody = Type.Object(
  {
    base_url: Type.String({ minLength: 1, maxLength: 2048, description: 'https rostering base URL' }),
    token_url: Type.String({
      minLength: 1,
      maxLength: 2048,
      description: 'https OAuth 2.0 token URL (client credentials)',
    }),
    ...ClientCredentials('Required the first time; omit to keep the stored one'),
    cohort_id: Choices.cohort_id,
    org_ids: Type.Optional(Choices.org_ids),
    term_types: Type.Optional(Choices.term_types),
    campus_org_types: Type.Optional(Choices.campus_org_types),
    programs_from: Type.Optional(Choices.programs_from),
    program_org_types: Type.Optional(Choices.program_org_types),
    student_id: Type.Optional(Choices.student_id),
    pull_every_minutes: Type.Optional(Choices.pull_every_minutes),
    full_every_hours: Type.Optional(Choices.full_every_hours),
  },
  { additionalProperties: false },
);
