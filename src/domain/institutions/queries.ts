// The SQL of institutions, their cohorts and the read-only listings (students, programs, campuses,
// audience tags), one function per statement, each taking the connection it runs in.
//
// Indexes: institutions by slug (unique); cohorts by (institution_id, created_at, id); students
// by (institution_id, lower(email)) and the prefix indexes of migration 0013 for `q`; programs,
// campuses and audience tags by their institution and lower-cased key. Every listing is a keyset
// page: one query whatever the page's depth.
import type { Queryable } from '../../db/db.ts';
import type { KeysetPage } from '../../db/keyset.ts';
import { keysetPage, type Paged, readKeysetPage } from '../../db/keyset.ts';
import { selectOwnedRow } from '../../db/owned-row.ts';
import type { CursorKey } from '../../lib/cursor.ts';
import type {
  ArchivedFilter,
  AudienceTagListing,
  CampusListing,
  Cohort,
  CohortClock,
  CohortOfInstitution,
  Institution,
  ProgramListing,
  StudentFilter,
  StudentListing,
} from './schemas.ts';

const institutionColumns = 'id, slug, name, name_lookalike_of, time_zone, created_at, archived_at';

export async function selectInstitutionBySlug(db: Queryable, slug: string): Promise<Institution | undefined> {
  const { rows } = await db.query<Institution>(
    `SELECT ${institutionColumns} FROM institutions WHERE slug = $1`,
    [slug],
  );
  return rows[0];
}

export async function selectInstitutionById(db: Queryable, id: string): Promise<Institution | undefined> {
  const { rows } = await db.query<Institution>(
    `SELECT ${institutionColumns} FROM institutions WHERE id = $1`,
    [id],
  );
  return rows[0];
}

/** Inserts an institution; a taken slug is the unique violation the caller turns into a conflict. */
export async function insertInstitution(
  db: Queryable,
  row: { slug: string; name: string; timeZone: string },
): Promise<Institution> {
  const { rows } = await db.query<Institution>(
    `INSERT INTO institutions (slug, name, time_zone) VALUES ($1, $2, $3) RETURNING ${institutionColumns}`,
    [row.slug, row.name, row.timeZone],
  );
  return rows[0];
}

/** Sets the name and time zone given (null keeps the stored one). */
export async function updateInstitutionRow(
  db: Queryable,
  institutionId: string,
  changes: { name: string | null; timeZone: string | null },
): Promise<Institution> {
  const { rows } = await db.query<Institution>(
    // A new name is held to the lookalike rule again (migration 0062), so its report is cleared.
    `UPDATE institutions SET name = COALESCE($2, name), time_zone = COALESCE($3, time_zone),
       name_lookalike_of = CASE WHEN $2::text IS NULL OR $2::text = name THEN name_lookalike_of END
     WHERE id = $1 RETURNING ${institutionColumns}`,
    [institutionId, changes.name, changes.timeZone],
  );
  return rows[0];
}

/** The condition of a listing's `archived` filter on a table's archived_at (one of three fixed texts). */
function archivedCondition(column: string, archived: ArchivedFilter): string {
  if (archived === 'any') return 'true';
  return `${column} IS ${archived === 'true' ? 'NOT ' : ''}NULL`;
}

export async function selectInstitutionPage(
  db: Queryable,
  page: KeysetPage & { archived: ArchivedFilter },
): Promise<Paged<Institution>> {
  return readKeysetPage<Institution>(
    db,
    `SELECT ${institutionColumns}, json_build_array(slug) AS sort_key FROM institutions
     WHERE ($1::text IS NULL OR slug > $1::text) AND ${archivedCondition('archived_at', page.archived)}
     ORDER BY slug LIMIT $2`,
    [],
    page,
  );
}

/**
 * Archives (`archive` true) or restores an institution. Archiving an archived one keeps its
 * first archived_at, restoring an active one changes nothing: both are idempotent.
 */
export async function setInstitutionArchived(
  db: Queryable,
  institutionId: string,
  archive: boolean,
  now: Date,
): Promise<Institution> {
  const { rows } = await db.query<Institution>(
    `UPDATE institutions SET archived_at = CASE WHEN $2 THEN coalesce(archived_at, $3) END
     WHERE id = $1 RETURNING ${institutionColumns}`,
    [institutionId, archive, now],
  );
  return rows[0];
}

/** Archives or restores a cohort of the institution (idempotent); undefined when it has no such cohort. */
export async function setCohortArchived(
  db: Queryable,
  institutionId: string,
  cohortId: string,
  archive: boolean,
  now: Date,
): Promise<Cohort | undefined> {
  const { rows } = await db.query<Cohort>(
    `UPDATE cohorts SET archived_at = CASE WHEN $3 THEN coalesce(archived_at, $4) END
     WHERE institution_id = $1 AND id = $2 RETURNING ${cohortColumns}`,
    [institutionId, cohortId, archive, now],
  );
  return rows[0];
}

/** A cohort's columns, of the table or of its alias `t` ("c."). */
const cohortColumnsOf = (t = '') =>
  `${t}id, ${t}institution_id, ${t}name, ${t}clock, to_char(${t}start_date, 'YYYY-MM-DD') AS start_date,
   ${t}created_at, ${t}archived_at`;
const cohortColumns = cohortColumnsOf();

export async function insertCohort(
  db: Queryable,
  institutionId: string,
  row: { name: string; clock: CohortClock; startDate: string | null },
): Promise<Cohort> {
  const { rows } = await db.query<Cohort>(
    `INSERT INTO cohorts (institution_id, name, clock, start_date) VALUES ($1, $2, $3, $4::date)
     RETURNING ${cohortColumns}`,
    [institutionId, row.name, row.clock, row.startDate],
  );
  return rows[0];
}

/**
 * Changes a cohort's name and clock (null keeps them) and, when `setStartDate`, its start date
 * (to `startDate`, null clearing it). Undefined when the institution has no such cohort.
 */
export async function updateCohortRow(
  db: Queryable,
  institutionId: string,
  cohortId: string,
  change: { name: string | null; clock: CohortClock | null; setStartDate: boolean; startDate: string | null },
): Promise<Cohort | undefined> {
  const { rows } = await db.query<Cohort>(
    `UPDATE cohorts SET name = coalesce($3, name), clock = coalesce($4, clock),
       start_date = CASE WHEN $5 THEN $6::date ELSE start_date END
     WHERE institution_id = $1 AND id = $2
     RETURNING ${cohortColumns}`,
    [institutionId, cohortId, change.name, change.clock, change.setStartDate, change.startDate],
  );
  return rows[0];
}

export async function selectCohortPage(
  db: Queryable,
  institutionId: string,
  page: KeysetPage & { archived: ArchivedFilter },
): Promise<Paged<Cohort>> {
  return readKeysetPage<Cohort>(
    db,
    `SELECT ${cohortColumns}, json_build_array(created_at, id) AS sort_key
     FROM cohorts
     WHERE institution_id = $1 AND ($2::timestamptz IS NULL OR (created_at, id) > ($2::timestamptz, $3::uuid))
       AND ${archivedCondition('archived_at', page.archived)}
     ORDER BY created_at, id LIMIT $4`,
    [institutionId],
    page,
    2,
  );
}

/** A cohort of the institution. */
export const selectCohort = (q: Queryable, institutionId: string, id: string) =>
  selectOwnedRow<Cohort>(q, 'cohorts', cohortColumns, institutionId, id);

/**
 * A cohort by id, of whichever institution (the roster feed checks whose it is), with its
 * institution's slug and archived_at (a push into an archived institution is refused).
 */
export async function selectCohortById(
  db: Queryable,
  cohortId: string,
): Promise<CohortOfInstitution | undefined> {
  const { rows } = await db.query<CohortOfInstitution>(
    `SELECT ${cohortColumnsOf('c.')},
       i.slug AS institution_slug, i.archived_at AS institution_archived_at
     FROM cohorts c JOIN institutions i ON i.id = c.institution_id WHERE c.id = $1`,
    [cohortId],
  );
  return rows[0];
}

/** `value` as a LIKE pattern matching the strings that start with it (lower-case both sides to ignore case). */
function prefixPattern(value: string): string {
  return `${value.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * A timestamptz as the API writes times (ISO 8601 UTC, milliseconds), formatted by the database:
 * the students listing and its export carry 100,000s of them, and turning each into a Date and
 * back into text costs the service more than the query does (measured: about half of a page).
 */
const isoTime = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

const studentColumns = `s.id, s.cohort_id, s.email, s.student_id_ext, s.first_name, s.last_name,
  p.code AS program_code, c.name AS campus_name, s.first_in_family,
  to_char(s.start_date, 'YYYY-MM-DD') AS start_date, ${isoTime('s.departed_at')} AS departed_at,
  ${isoTime('s.created_at')} AS created_at, ${isoTime('s.updated_at')} AS updated_at`;

const studentJoins = `LEFT JOIN programs p ON p.id = s.program_id AND p.institution_id = s.institution_id
  LEFT JOIN campuses c ON c.id = s.campus_id AND c.institution_id = s.institution_id`;

export async function selectStudentPage(
  db: Queryable,
  institutionId: string,
  page: KeysetPage & StudentFilter,
): Promise<Paged<StudentListing>> {
  // Only the filters given become conditions, each with its value as a plain parameter: the
  // planner sees the prefix of a LIKE pattern and the cursor's key, and turns them into
  // index range scans.
  const params: unknown[] = [institutionId];
  const param = (value: unknown) => `$${params.push(value)}`;
  const where = ['s.institution_id = $1'];
  if (page.after) where.push(`lower(s.email) > ${param(page.after[0])}::text`);
  if (page.q !== undefined) {
    const q = `lower(${param(prefixPattern(page.q))}::text)`;
    where.push(`(lower(s.email) LIKE ${q} OR lower(s.student_id_ext) LIKE ${q}
      OR lower(coalesce(s.first_name, '') || ' ' || coalesce(s.last_name, '')) LIKE ${q}
      OR lower(s.last_name) LIKE ${q})`);
  }
  if (page.cohortId) where.push(`s.cohort_id = ${param(page.cohortId)}::uuid`);
  if (page.email !== undefined) where.push(`lower(s.email) = lower(${param(page.email)}::text)`);
  if (page.studentIdExt !== undefined) where.push(`s.student_id_ext = ${param(page.studentIdExt)}::text`);
  if (page.program !== undefined) where.push(`lower(p.code) = lower(${param(page.program)}::text)`);
  if (page.campus !== undefined) where.push(`lower(c.name) = lower(${param(page.campus)}::text)`);
  if (page.status) where.push(`s.departed_at IS ${page.status === 'active' ? '' : 'NOT '}NULL`);
  const { rows } = await db.query<StudentListing & { sort_key: CursorKey }>(
    `SELECT ${studentColumns}, json_build_array(lower(s.email)) AS sort_key
     FROM students s
     ${studentJoins}
     WHERE ${where.join(' AND ')}
     ORDER BY lower(s.email) LIMIT ${param(page.limit + 1)}`,
    params,
  );
  return keysetPage(rows, page.limit);
}

export async function selectStudent(
  db: Queryable,
  institutionId: string,
  studentId: string,
): Promise<StudentListing | undefined> {
  const { rows } = await db.query<StudentListing>(
    `SELECT ${studentColumns} FROM students s
     ${studentJoins}
     WHERE s.institution_id = $1 AND s.id = $2`,
    [institutionId, studentId],
  );
  return rows[0];
}

export async function selectProgramPage(
  db: Queryable,
  institutionId: string,
  page: KeysetPage,
): Promise<Paged<ProgramListing>> {
  return readKeysetPage<ProgramListing>(
    db,
    `SELECT id, code AS program_code, name, coordinator_name, coordinator_title, created_at, updated_at,
            json_build_array(lower(code)) AS sort_key
     FROM programs WHERE institution_id = $1 AND ($2::text IS NULL OR lower(code) > $2::text)
     ORDER BY lower(code) LIMIT $3`,
    [institutionId],
    page,
  );
}

export async function selectCampusPage(
  db: Queryable,
  institutionId: string,
  page: KeysetPage,
): Promise<Paged<CampusListing>> {
  return readKeysetPage<CampusListing>(
    db,
    `SELECT id, name, created_at, updated_at, json_build_array(lower(name)) AS sort_key
     FROM campuses WHERE institution_id = $1 AND ($2::text IS NULL OR lower(name) > $2::text)
     ORDER BY lower(name) LIMIT $3`,
    [institutionId],
    page,
  );
}

export async function selectAudienceTagPage(
  db: Queryable,
  institutionId: string,
  page: KeysetPage,
): Promise<Paged<AudienceTagListing>> {
  return readKeysetPage<AudienceTagListing>(
    db,
    `SELECT id, kind, source_id, label, created_at, json_build_array(kind, lower(label), id) AS sort_key
     FROM audience_tags
     WHERE institution_id = $1
       AND ($2::text IS NULL OR (kind, lower(label), id) > ($2::text, $3::text, $4::uuid))
     ORDER BY kind, lower(label), id LIMIT $5`,
    [institutionId],
    page,
    3,
  );
}

/** What the operator's list says of each institution (see institutionOverview). */
export interface InstitutionOverview {
  institution_id: string;
  /** Current students, counted up to STUDENTS_COUNTED (then "at least"). */
  students: number;
  last_push_at: Date | null;
  last_push_errors: number;
  /** Webhook endpoints, calendar feeds and the OneRoster source now failing or disabled. */
  failing: number;
}

/** Students are counted up to this many an institution: the list's cost stays bounded. */
export const STUDENTS_COUNTED = 100_000;

/**
 * The overview of a page of institutions in one statement: per institution a bounded count of its
 * current students (an index range of students_email_key, at most STUDENTS_COUNTED rows), its last
 * real push (the newest row of sis_runs_listing_idx that is not a dry run) and its failing
 * integrations (each table's rows of the institution, a handful).
 */
export async function selectInstitutionOverview(
  q: Queryable,
  institutionIds: readonly string[],
): Promise<InstitutionOverview[]> {
  const { rows } = await q.query<InstitutionOverview>(
    `SELECT i.id AS institution_id, s.students, r.finished_at AS last_push_at,
            COALESCE(r.error_count, 0) AS last_push_errors, f.failing
     FROM unnest($1::uuid[]) AS i(id)
     CROSS JOIN LATERAL (SELECT count(*)::int AS students FROM (
         SELECT 1 FROM students WHERE institution_id = i.id AND departed_at IS NULL LIMIT $2) c) s
     LEFT JOIN LATERAL (SELECT finished_at, error_count FROM sis_runs
         WHERE institution_id = i.id AND NOT dry_run ORDER BY started_at DESC, id DESC LIMIT 1) r ON true
     CROSS JOIN LATERAL (SELECT
         (SELECT count(*) FROM webhook_endpoints
           WHERE institution_id = i.id AND (failing_since IS NOT NULL OR NOT enabled))
       + (SELECT count(*) FROM calendar_feeds WHERE institution_id = i.id AND failing_since IS NOT NULL)
       + (SELECT count(*) FROM oneroster_sources WHERE institution_id = i.id AND failing_since IS NOT NULL)
       AS failing) f`,
    [institutionIds, STUDENTS_COUNTED],
  );
  return rows.map((row) => ({ ...row, failing: Number(row.failing) }));
}
