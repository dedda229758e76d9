// OpenAPI text of POST /api/sis/enrolments: the description, each section's row shape, the body's
// and the answer's schemas and examples. Kept apart from the route so the handler stays short.
import { Type } from 'typebox';
import { type SectionName, sectionLimits, sectionOrder } from '../../../domain/taxonomy/section.ts';
import { Nullable } from '../../../lib/schema.ts';
import { SourceLines } from './source-lines.ts';

export const sectionDescriptions: Record<SectionName, string> = {
  programs:
    `Programs (degrees), at most ${sectionLimits.programs} per request. Row: ` +
    '`program_code` (string, required, the key, matched case-insensitively; renaming is safe), ' +
    '`name` (string; omitted, null or blank keeps the stored name), ' +
    '`coordinator_name`, `coordinator_title` (strings; omitted keeps, null or blank clears). ' +
    'Creating a program creates its audience tag.',
  campuses:
    `Campuses, at most ${sectionLimits.campuses} per request. Row: \`name\` (string, required, the key, ` +
    'matched case-insensitively; `campus_name` is accepted as an alias). A campus has no code: a campus ' +
    'renamed upstream arrives as a new name and is created as a second campus, to be merged by the operator. ' +
    'Creating a campus creates its audience tag.',
  terms:
    `Terms of the teaching calendar, at most ${sectionLimits.terms} per request. Row: ` +
    '`term_code` (string, required, the stable key, matched case-insensitively), `name` (string; omitted, null or ' +
    'blank keeps the stored name), `start_date` and `end_date` (`yyyy-mm-dd`; required for a new term, omitted ' +
    'keeps the stored date; `end_date` may not be before `start_date`).',
  units:
    `Units, at most ${sectionLimits.units} per request. Row: \`unit_code\` (string, required, the key, ` +
    'matched case-insensitively), `name` (kept when omitted), `program_code` (the program the unit belongs to) and ' +
    '`campus_name` (alias `campus_code`; the campus it is taught at): omitted keeps the stored link, null or blank ' +
    'clears it, a value that matches no program or campus rejects the row (`program_not_found`, ' +
    '`campus_not_found`).',
  enrolments:
    `Enrolments, at most ${sectionLimits.enrolments} per request. Row: the student by \`email\` ` +
    '(case-insensitive) and/or `student_id_ext` (at least one; email is tried first), `unit_code` and `term_code` ' +
    '(required), `status` (`enrolled`, `withdrawn` or `completed`, case-insensitive; a new enrolment without a ' +
    'status is `enrolled`, an omitted status keeps the stored one). The key is (student, unit, term). A student, ' +
    'unit or term that does not exist rejects the row with `student_not_found`, `unit_not_found` or ' +
    '`term_not_found` (one entry each); email and student_id_ext naming two different students is ' +
    '`student_conflict`.',
};

export function enrolmentsDescription(ratePerMinute: number): string {
  const limits = Object.entries(sectionLimits)
    .map(([section, max]) => `${section} ${max}`)
    .join(', ');
  return [
    "Upserts the institution's taxonomy and enrolments by natural key, idempotently: re-sending the same rows " +
      'changes nothing and reports them as `unchanged`. Every section is optional and one request may carry any ' +
      'of them; a real run applies those present in dependency order (programs, campuses, terms, units, ' +
      'enrolments) in one transaction, so a unit may name a program sent in the same request.',
    '',
    '**Rows are validated one by one.** A malformed row (of any shape) is reported in `errors` with its section, ' +
      'zero-based `row` position, a stable `code` and a `message`; the other rows still apply. An error of the ' +
      'enrolments section also carries the keys its row was sent with: `email`, `student_id_ext`, `unit_code` and ' +
      '`term_code` (null when absent or unusable). Row codes: ' +
      '`invalid_row` (not an object), `missing_field`, `invalid_field` (wrong type, too long, unstorable ' +
      'characters), `conflicting_fields` (campus `name` and `campus_name` disagree), `duplicate_key` (the key ' +
      'appears earlier in the same section: the first row is applied, later ones are rejected), `invalid_date`, ' +
      '`end_before_start`, `invalid_status`, `program_not_found`, `campus_not_found`, `student_not_found`, ' +
      '`student_conflict`, `unit_not_found`, `term_not_found`.',
    '',
    '**Dry run** (`dry_run: true`) writes nothing, the calendar included, and reports the counts a real run would ' +
      '(created, updated, unchanged) and every row problem. Each section of a dry run is checked against what is ' +
      'stored only, never against another section of the same request: a dry-run enrolment whose term is only ' +
      'in the same request reports `term_not_found` until the calendar has been pushed for real (spec 4.2 rule 3).',
    '',
    "**Authentication**: the institution's roster secret, or the platform bootstrap secret while the institution " +
      "has never been issued one. A valid slug with another institution's secret is 401 `unauthorized`; an unknown " +
      'slug is 401 for an institution secret and 404 `institution_not_found` for the bootstrap secret. An archived ' +
      'institution refuses every push with 409 `institution_archived` and a sentence (docs/archiving.md).',
    '',
    '**Request errors**: 400 (`malformed_json`, `empty_body`, `missing_field`, `invalid_field`, `unknown_section` ' +
      'for a top-level field that is not one of the above, with `field` and, when a field is close, `suggestion`), 413 `batch_too_large` with `max` and `field` naming ' +
      `the section (limits per request: ${limits}), 415 \`unsupported_media_type\`, ` +
      `429 \`rate_limited\` with \`Retry-After\` beyond ${ratePerMinute} requests per minute per client, ` +
      '503 `not_configured` when no roster secret exists at all, 503 `database_unavailable` with `Retry-After` ' +
      'while the database cannot be reached.',
  ].join('\n');
}

/** The row an enrolments example refuses, as its errors name it. */
interface ExampleRow {
  row: number;
  email: string | null;
  student_id_ext: string | null;
  unit_code: string;
  term_code: string;
}

/** An error of the enrolments section in the examples: the row, then why it was refused. */
const enrolmentError = (row: ExampleRow, code: string, message: string, field: string) => ({
  section: 'enrolments',
  ...row,
  code,
  message,
  field,
});

/** The example's enrolment of a student the institution does not have, in a unit it does not have. */
const unknownStudentRow: ExampleRow = {
  row: 2,
  email: null,
  student_id_ext: 'S9999',
  unit_code: 'NURS999',
  term_code: '2026-S1',
};

export const enrolmentsExamples = {
  requests: [
    {
      institution: 'northbridge',
      programs: [
        {
          program_code: 'BSC-NURS',
          name: 'Bachelor of Nursing',
          coordinator_name: 'Dr Ada Moss',
          coordinator_title: 'Course coordinator',
        },
      ],
      campuses: [{ name: 'City' }, { campus_name: 'Riverside' }],
      terms: [
        { term_code: '2026-S1', name: 'Semester 1, 2026', start_date: '2026-02-23', end_date: '2026-06-19' },
      ],
      units: [
        {
          unit_code: 'NURS101',
          name: 'Foundations of Nursing',
          program_code: 'BSC-NURS',
          campus_name: 'City',
        },
      ],
      enrolments: [
        {
          email: 'mia.chen@student.northbridge.edu',
          unit_code: 'NURS101',
          term_code: '2026-S1',
          status: 'enrolled',
        },
        { student_id_ext: 'S1002', unit_code: 'NURS101', term_code: '2026-S1', status: 'withdrawn' },
        { student_id_ext: 'S9999', unit_code: 'NURS999', term_code: '2026-S1' },
      ],
    },
  ],
  responses: [
    {
      run_id: '0d9c8a52-5f8e-4f0c-9a51-3c1d2e4b7a10',
      institution: 'northbridge',
      dry_run: false,
      sections: {
        programs: { received: 1, created: 1, updated: 0, unchanged: 0, rejected: 0 },
        campuses: { received: 2, created: 0, updated: 0, unchanged: 2, rejected: 0 },
        terms: { received: 1, created: 1, updated: 0, unchanged: 0, rejected: 0 },
        units: { received: 1, created: 1, updated: 0, unchanged: 0, rejected: 0 },
        enrolments: { received: 3, created: 1, updated: 1, unchanged: 0, rejected: 1 },
      },
      errors: [
        enrolmentError(
          unknownStudentRow,
          'student_not_found',
          'No student has the student ID S9999',
          'student_id_ext',
        ),
        enrolmentError(unknownStudentRow, 'unit_not_found', 'No unit has the code NURS999', 'unit_code'),
      ],
    },
    {
      run_id: '0d9c8a52-5f8e-4f0c-9a51-3c1d2e4b7a10',
      institution: 'northbridge',
      dry_run: true,
      sections: {
        terms: { received: 1, created: 1, updated: 0, unchanged: 0, rejected: 0 },
        enrolments: { received: 1, created: 0, updated: 0, unchanged: 0, rejected: 1 },
      },
      errors: [
        enrolmentError(
          {
            row: 0,
            email: 'mia.chen@student.northbridge.edu',
            student_id_ext: null,
            unit_code: 'NURS101',
            term_code: '2026-S2',
          },
          'term_not_found',
          'No term has the code 2026-S2 among the stored terms (a dry run does not see the terms of the same push)',
          'term_code',
        ),
      ],
    },
  ],
};

const Section = (name: SectionName) =>
  Type.Optional(Type.Array(Type.Unknown(), { description: sectionDescriptions[name] }));

export const Body = Type.Object(
  {
    institution: Type.String({
      description: 'Slug of the institution; the bearer secret must be valid for it.',
    }),
    dry_run: Type.Optional(
      Type.Boolean({
        default: false,
        description:
          'true: validate every section against what is stored and report what would happen; nothing is written.',
      }),
    ),
    programs: Section('programs'),
    campuses: Section('campuses'),
    terms: Section('terms'),
    units: Section('units'),
    enrolments: Section('enrolments'),
    lines: Type.Optional(
      Type.Record(Type.String(), SourceLines(5000, 'the section'), {
        description: 'Per section, as `lines` of the roster feed.',
      }),
    ),
  },
  { additionalProperties: true, examples: enrolmentsExamples.requests },
);

const SectionReport = Type.Object({
  received: Type.Integer({ description: 'Rows sent in the section' }),
  created: Type.Integer({ description: 'Rows that created a record (dry run: would create)' }),
  updated: Type.Integer({ description: 'Rows that changed a stored record (dry run: would update)' }),
  unchanged: Type.Integer({ description: 'Rows identical to what is stored' }),
  rejected: Type.Integer({ description: 'Rows not applied; each has at least one entry in errors' }),
});

/** Enrolments section only: the keys its rows were sent with, beside `row`. */
const enrolmentKey = (field: string) =>
  `Enrolments section only (always present there): the ${field} the row was sent with (trimmed; an integer ` +
  'as its digits), so the record can be found in the SIS; null when absent, blank, of another type or too long';

const RowError = Type.Object({
  section: Type.String({ description: 'programs, campuses, terms, units or enrolments' }),
  row: Type.Integer({ description: "Zero-based position of the row in its section's array" }),
  email: Type.Optional(Nullable(Type.String({ description: enrolmentKey('email') }))),
  student_id_ext: Type.Optional(Nullable(Type.String({ description: enrolmentKey('student_id_ext') }))),
  unit_code: Type.Optional(Nullable(Type.String({ description: enrolmentKey('unit_code') }))),
  term_code: Type.Optional(Nullable(Type.String({ description: enrolmentKey('term_code') }))),
  code: Type.String({ description: 'Stable row error code; branch on this' }),
  message: Type.String({ description: 'What is wrong, for people; may be reworded' }),
  field: Type.Optional(Type.String({ description: 'The row field at fault, when one is' })),
});

export const Result = Type.Object(
  {
    run_id: Type.String({
      format: 'uuid',
      description: 'This push in the run history (GET /admin/v1/institutions/{slug}/runs/{run_id})',
    }),
    institution: Type.String(),
    dry_run: Type.Boolean(),
    sections: Type.Object(
      Object.fromEntries(sectionOrder.map((name) => [name, Type.Optional(SectionReport)])) as Record<
        SectionName,
        ReturnType<typeof Type.Optional<typeof SectionReport>>
      >,
      { description: 'One report per section present in the request' },
    ),
    errors: Type.Array(RowError, { description: 'Every rejected row, in section order then row order' }),
  },
  { examples: enrolmentsExamples.responses },
);
