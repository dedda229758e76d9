// The roster feed's OpenAPI text: its description and the schemas of its body and answer, kept
// apart from the route (sis-sync.ts), as every feed's is.
import { Type } from 'typebox';
import { type RosterRowErrorCode, rosterRowErrorCodes } from '../../../domain/roster/rows.ts';
import {
  MAX_STUDENTS_PER_PAGE,
  type RosterWarning,
  rosterWarningCodes,
} from '../../../domain/roster/sync.ts';
import { Nullable } from '../../../lib/schema.ts';
import { SourceLines } from './source-lines.ts';

export const description = `Pushes one page of a cohort's students from the student information system.

**Authentication**: \`Authorization: Bearer <roster secret>\`. An institution that has been issued its own
secret accepts only that secret; once revoked, the feed is closed (no fallback). An institution never
issued a secret accepts the platform-wide bootstrap secret. 401 \`unauthorized\` for a missing or wrong
secret; 503 \`not_configured\` when no bootstrap secret and no institution secret exist at all. The bootstrap
secret used on a cohort of an institution that has (or had) its own secret is 401. A cohort of another
institution is 404 \`cohort_not_found\`, the same as a cohort that does not exist. A cohort whose institution is
archived is 409 \`institution_archived\`; an archived cohort is 409 \`cohort_archived\` (docs/archiving.md).

**Rows** are validated one by one; a bad row is reported in \`errors\` as
\`{row, email, student_id_ext, code, field, message}\` (\`row\` is the 0-based index in \`students\`,
\`email\` and \`student_id_ext\` the keys the row was sent with, null when absent or unusable, \`code\` a
stable snake_case code, \`field\` the field at fault)
and the other rows still import. Matching: by email (case-insensitive), then
by \`student_id_ext\` (exact) within the institution. A row whose email matches one student and whose
\`student_id_ext\` matches another is an error, never a merge. In one page the first row with a given email or
\`student_id_ext\` wins; later repeats are errors. A matched student moves to the pushed cohort.

Optional fields that are absent, null, blank, or (program, campus) unrecognised never clear a stored value.
An unrecognised program code or campus value is reported in \`warnings\` (the row imports without it) and
kept with the run in the push history.
\`first_in_family\` accepts true, false, "true", "false" (any case); anything else is a row error.
An invalid \`start_date\` is ignored (reported on a dry run).

**Limits**: ${MAX_STUDENTS_PER_PAGE} students per request (413 \`batch_too_large\` with \`max\`); a per-client rate limit
(default 20 requests per minute; 429 \`rate_limited\` with \`Retry-After\`). While the database cannot be reached,
503 \`database_unavailable\` with \`Retry-After\`.

**Unknown top-level fields** are refused: 400 \`unknown_field\` with \`field\` and, when a field is close,
\`suggestion\` (\`dryRun\` is not \`dry_run\`, and is never taken for a real push).

A 200 means the page was processed: read \`errors\` and \`warnings\`.`;

// The example student of the row schema and of the body's example (a string flag there, a boolean here).
const exampleStudent = {
  email: 'ana.lima@student.example.edu',
  student_id_ext: 'S1000123',
  first_name: 'Ana',
  last_name: 'Lima',
  program_code: 'BSCI',
  campus_name: 'City Campus',
};

const StudentRow = Type.Unknown({
  description:
    'A student row (spec 2.1). Validated one by one: a malformed row (not an object, a missing or ' +
    'mistyped field) becomes an entry in `errors` and the other rows still import.',
  examples: [
    {
      ...exampleStudent,
      first_in_family: 'true',
      start_date: '2026-02-23',
    },
  ],
});

export const SyncBody = Type.Object(
  {
    cohort_id: Type.String({
      description:
        "The cohort's UUID; the institution is derived from it. A cohort of another institution, " +
        'or one that does not exist (or is not a UUID), is 404 cohort_not_found; an archived one is 409 ' +
        'cohort_archived.',
    }),
    students: Type.Array(StudentRow, {
      description: `Up to ${MAX_STUDENTS_PER_PAGE} student rows; more is 413 batch_too_large with max.`,
    }),
    dry_run: Type.Optional(
      Type.Boolean({ description: 'true: validate and match everything, write nothing.', default: false }),
    ),
    sync_id: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description:
          'Opt-in full sync: the same value on every page of one complete push of the cohort. With ' +
          '`final_page`, the students no page named are departed (never deleted); see docs/departures-and-history.md.',
      }),
    ),
    final_page: Type.Optional(
      Type.Boolean({
        description:
          'true on the last page of a full sync (requires sync_id), sent after the other pages have returned.',
      }),
    ),
    lines: Type.Optional(SourceLines(MAX_STUDENTS_PER_PAGE, '`students`')),
  },
  {
    additionalProperties: false,
    description:
      'Any other top-level field is refused with 400 `unknown_field` naming it (`field`), with `suggestion` ' +
      'when a field of this list is close (`dryRun` -> `dry_run`): a misspelt option is never ignored.',
    examples: [
      {
        cohort_id: '6f1c2d4e-8a9b-4c3d-9e7f-1a2b3c4d5e6f',
        students: [
          {
            ...exampleStudent,
            first_in_family: true,
            start_date: '2026-02-23',
          },
          { email: 'ben.okafor@student.example.edu', student_id_ext: 'S1000124', campus_code: 'north' },
          { student_id_ext: 'S1000125', first_name: 'No email' },
        ],
      },
    ],
  },
);

const RowError = Type.Object({
  row: Type.Integer({ description: '0-based index of the row in `students`.' }),
  email: Nullable(
    Type.String({
      description:
        'The email the row was sent with (trimmed), so the record can be found in the SIS; null when absent, ' +
        'blank, not a string, too long or not storable text.',
    }),
  ),
  student_id_ext: Nullable(
    Type.String({
      description:
        'The student_id_ext the row was sent with (trimmed); null when absent, blank, not a string, too long or ' +
        'not storable text.',
    }),
  ),
  code: Type.Unsafe<RosterRowErrorCode>({
    type: 'string',
    enum: [...rosterRowErrorCodes],
    description:
      'Stable code of the first problem of the row; branch on this. `invalid_row`: not an object. ' +
      '`missing_field`: email or student_id_ext absent, null or blank. `invalid_field`: wrong type, too long, ' +
      'text that cannot be stored, not an email address, or first_in_family not a boolean. `duplicate_key`: an ' +
      'earlier row of the page has the same email or student_id_ext. `student_conflict`: the email belongs to one ' +
      'stored student and the student_id_ext to another. `duplicate_student`: an earlier row of the page reaches ' +
      'the same stored student.',
  }),
  field: Type.Optional(Type.String({ description: 'The row field at fault, when one is.' })),
  message: Type.String({ description: 'Every problem of the row, separated by `; `; may be reworded.' }),
});

const Warning = Type.Object({
  code: Type.Unsafe<RosterWarning['code']>({
    type: 'string',
    enum: [...rosterWarningCodes],
    description:
      '`unknown_program_code`: no program has this code. `unknown_campus`: no campus (nor a merged campus name) ' +
      'has this name. Matching is case-insensitive.',
  }),
  field: Type.String({ description: '`program_code`, `campus_name` or `campus_code`.' }),
  value: Type.String({ description: 'The value as the first row carrying it sent it.' }),
  rows: Type.Array(Type.Integer(), { description: '0-based row indexes carrying this value.' }),
  message: Type.String({ description: 'For people; may be reworded.' }),
});

const ValueRows = Type.Object({
  value: Type.String(),
  rows: Type.Array(Type.Integer(), { description: '0-based row indexes carrying this value.' }),
});

const FullSync = Type.Object(
  {
    sync_id: Type.String(),
    status: Type.Optional(
      Type.String({
        description:
          'open until the final page; then applied (departures written) or held (over the threshold, ' +
          'waiting for an admin); later confirmed or discarded.',
      }),
    ),
    pages: Type.Optional(Type.Integer({ description: 'Pages recorded for this sync so far.' })),
    final_page: Type.Boolean(),
    cohort_size: Type.Optional(
      Type.Integer({ description: 'Active students of the cohort at the final page.' }),
    ),
    departures: Type.Optional(Type.Integer({ description: 'Students no page named (departed, or held).' })),
    would_depart: Type.Optional(
      Type.Integer({ description: 'Dry run of a final page: students it would depart.' }),
    ),
    would_hold: Type.Optional(
      Type.Boolean({ description: 'Dry run of a final page: whether they would be held.' }),
    ),
    threshold: Type.Number({ description: 'Share of the cohort above which departures are held.' }),
  },
  { description: 'Present when sync_id was sent.' },
);

// The row error and warning of the response examples: the same in the push and its dry run.
const exampleRowError = {
  row: 2,
  email: null,
  student_id_ext: 'S1000125',
  code: 'missing_field',
  field: 'email',
  message: 'The email is missing',
};
const exampleCampusWarning = {
  code: 'unknown_campus',
  field: 'campus_code',
  value: 'north',
  rows: [1],
  message: 'no campus is named "north"; the rows imported without a campus (a stored one is kept)',
};

export const SyncResponse = Type.Object(
  {
    run_id: Type.String({
      format: 'uuid',
      description: 'This push in the run history (GET /admin/v1/institutions/{slug}/runs/{run_id}).',
    }),
    received: Type.Integer({ description: 'Rows received (length of `students`).' }),
    created: Type.Integer({ description: 'Students created. Always 0 on a dry run.' }),
    updated: Type.Integer({
      description:
        'Existing students matched by a row and brought up to date, including ones the row left ' +
        'unchanged (an identical re-send counts as updated). Always 0 on a dry run.',
    }),
    imported: Type.Integer({ description: 'Rows imported: created + updated. Always 0 on a dry run.' }),
    errors: Type.Array(RowError, { description: 'Rows not imported, in row order, one entry per row.' }),
    warnings: Type.Array(Warning, {
      description:
        'Values the push could not match, one entry per distinct value. The rows listed imported (on a dry run: ' +
        'would import) with the value unset for a new student and kept for an existing one. Kept with the run.',
    }),
    dry_run: Type.Optional(Type.Literal(true, { description: 'Present (true) only on a dry run.' })),
    would_create: Type.Optional(Type.Integer({ description: 'Dry run: students a real push would create.' })),
    would_update: Type.Optional(Type.Integer({ description: 'Dry run: students a real push would update.' })),
    unknown_program_codes: Type.Optional(
      Type.Array(ValueRows, {
        description:
          'Dry run: program codes matching no program (case-insensitive); such rows import with program unset.',
      }),
    ),
    unknown_campus_values: Type.Optional(
      Type.Array(ValueRows, {
        description:
          'Dry run: campus_name (or campus_code) values matching no campus; such rows import with campus unset.',
      }),
    ),
    duplicate_emails: Type.Optional(
      Type.Array(ValueRows, {
        description:
          'Dry run: emails (lower-cased) sent on more than one row; rows[0] is the row that counts, the rest are errors.',
      }),
    ),
    duplicate_student_id_exts: Type.Optional(
      Type.Array(ValueRows, {
        description:
          'Dry run: student_id_ext values on more than one row; rows[0] counts, the rest are errors.',
      }),
    ),
    bad_dates: Type.Optional(
      Type.Array(Type.Object({ row: Type.Integer(), value: Type.String() }), {
        description:
          'Dry run: start_date values that are not a valid yyyy-mm-dd date; ignored, never an error.',
      }),
    ),
    full_sync: Type.Optional(FullSync),
  },
  {
    examples: [
      {
        run_id: '5b2f0e7c-1d3a-4c8e-9f60-7a2b8c9d0e1f',
        received: 3,
        created: 1,
        updated: 1,
        imported: 2,
        errors: [exampleRowError],
        warnings: [exampleCampusWarning],
      },
      {
        run_id: '9e4d1c2b-3a5f-4b6e-8d7c-0f1e2d3c4b5a',
        received: 3,
        created: 0,
        updated: 0,
        imported: 0,
        errors: [exampleRowError],
        warnings: [exampleCampusWarning],
        dry_run: true,
        would_create: 1,
        would_update: 1,
        unknown_program_codes: [],
        unknown_campus_values: [{ value: 'north', rows: [1] }],
        duplicate_emails: [],
        duplicate_student_id_exts: [],
        bad_dates: [],
      },
    ],
  },
);
