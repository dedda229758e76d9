// The roster feed's description in the API reference (kept apart from the route, as sis-enrolments-docs.ts).
import { MAX_STUDENTS_PER_PAGE } from '../../../domain/roster/sync.ts';

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
