// The SQL of full syncs as people read and decide them: the listing (a range of the full syncs'
// (institution, started_at, id) order), one sync, its departing students, and the decision on
// held departures; and the statements a roster push runs while it records a full sync's pages.
// Every statement is keyed by institution.
import type { Queryable } from '../../db/db.ts';
import { type KeysetPage, type Paged, readKeysetPage } from '../../db/keyset.ts';
import { selectOwnedRow } from '../../db/owned-row.ts';
import type { DepartingStudent, FullSyncListing, FullSyncStatus } from './schemas.ts';

const fullSyncColumns = `id, cohort_id, sync_id, status, pages, cohort_size, departures, threshold::float8 AS threshold,
  started_at, finished_at, decided_at, decided_by`;

/** A page of full syncs, newest first. */
export async function selectFullSyncPage(
  q: Queryable,
  institutionId: string,
  page: KeysetPage & { status?: string },
): Promise<Paged<FullSyncListing>> {
  return readKeysetPage<FullSyncListing>(
    q,
    `SELECT ${fullSyncColumns}, json_build_array(started_at, id) AS sort_key
     FROM full_syncs WHERE institution_id = $1 AND ($2::text IS NULL OR status = $2::text)
       AND ($3::timestamptz IS NULL OR (started_at, id) < ($3::timestamptz, $4::uuid))
     ORDER BY started_at DESC, id DESC LIMIT $5`,
    [institutionId, page.status ?? null],
    page,
    2,
  );
}

/** One full sync of the institution, or undefined. */
export const selectFullSync = (q: Queryable, institutionId: string, id: string) =>
  selectOwnedRow<FullSyncListing>(q, 'full_syncs', fullSyncColumns, institutionId, id);

/**
 * Every student a full sync departs (up to 10,000), by email. Each departing student is read by
 * its primary key: as a plain join the planner hashes the whole institution's students (a
 * sequential scan): 21-26 ms for 1,000 departures among 100,000 students on PostgreSQL, against
 * 7-8 ms this way (bench/console.ts, the held full sync page). LIMIT 1 keeps the subquery from
 * being flattened back into that join.
 */
export async function selectAllDepartingStudents(q: Queryable, institutionId: string, id: string) {
  const { rows } = await q.query<DepartingStudent>(
    `SELECT s.id, s.email, s.student_id_ext, s.departed_at FROM full_sync_departures d
     CROSS JOIN LATERAL (SELECT id, email, student_id_ext, departed_at FROM students
                         WHERE id = d.student_id AND institution_id = $1 LIMIT 1) s
     WHERE d.full_sync_id = $2 ORDER BY lower(s.email) LIMIT 10000`,
    [institutionId, id],
  );
  return rows;
}

/**
 * A page of a full sync's departing students by student id: a range of the departures' primary
 * key, each student then read by its own (as above, for the same reason).
 */
export async function selectDeparturePage(
  q: Queryable,
  institutionId: string,
  id: string,
  page: KeysetPage,
): Promise<Paged<DepartingStudent>> {
  return readKeysetPage<DepartingStudent>(
    q,
    `SELECT s.id, s.email, s.student_id_ext, s.departed_at, json_build_array(d.student_id) AS sort_key
     FROM full_sync_departures d
     CROSS JOIN LATERAL (SELECT id, email, student_id_ext, departed_at FROM students
                         WHERE id = d.student_id AND institution_id = $1 LIMIT 1) s
     WHERE d.full_sync_id = $2 AND ($3::uuid IS NULL OR d.student_id > $3::uuid)
     ORDER BY d.student_id LIMIT $4`,
    [institutionId, id],
    page,
  );
}

/** A full sync locked for a decision, or undefined. */
export async function lockFullSync(tx: Queryable, institutionId: string, id: string) {
  const { rows } = await tx.query<{ id: string; sync_id: string; status: FullSyncStatus; finished_at: Date }>(
    `SELECT id, sync_id, status, finished_at FROM full_syncs
     WHERE institution_id = $1 AND id = $2 FOR UPDATE`,
    [institutionId, id],
  );
  return rows[0];
}

/** Records an admin's decision on a full sync. */
export async function markDecided(
  tx: Queryable,
  id: string,
  decision: { status: 'confirmed' | 'discarded'; at: Date; by: string },
) {
  await tx.query('UPDATE full_syncs SET status = $2, decided_at = $3, decided_by = $4 WHERE id = $1', [
    id,
    decision.status,
    decision.at,
    decision.by,
  ]);
}

/**
 * Marks a full sync's departures departed; returns how many. Students pushed since the sync
 * finished (`since`) are skipped: a later push naming them is newer news than the sync.
 */
export async function applyDepartures(
  tx: Queryable,
  institutionId: string,
  fullSyncId: string,
  now: Date,
  since?: Date,
): Promise<number> {
  const { rowCount } = await tx.query(
    `UPDATE students s SET departed_at = $3
     FROM full_sync_departures d
     WHERE d.full_sync_id = $2 AND s.id = d.student_id AND s.institution_id = $1 AND s.departed_at IS NULL
       AND ($4::timestamptz IS NULL OR s.updated_at <= $4::timestamptz)`,
    [institutionId, fullSyncId, now, since ?? null],
  );
  return rowCount;
}

/** A full sync's row as a roster page records it. */
export interface FullSyncRow {
  id: string;
  sync_id: string;
  status: FullSyncStatus;
  pages: number;
  cohort_size: number | null;
  departures: number | null;
  threshold: string | number | null;
}

/** The page of a full sync being recorded: whose sync, and the keys its rows named. */
interface SyncPage {
  institutionId: string;
  cohortId: string;
  syncId: string;
  keys: { emails: string[]; externalIds: string[] };
  now: Date;
}

const namedStudents = `
  SELECT s.id FROM students s
  WHERE s.institution_id = $1
    AND (lower(s.email) IN (SELECT lower(value) FROM jsonb_array_elements_text($2::jsonb))
         OR s.student_id_ext IN (SELECT value FROM jsonb_array_elements_text($3::jsonb)))`;

const syncRowColumns = 'id, sync_id, status, pages, cohort_size, departures, threshold';

/** Opens the sync at its first page, or counts one more page while it is open. */
export async function upsertFullSync(tx: Queryable, page: SyncPage): Promise<FullSyncRow> {
  const { rows } = await tx.query<FullSyncRow>(
    `INSERT INTO full_syncs (institution_id, cohort_id, sync_id, pages, started_at) VALUES ($1, $2, $3, 1, $4)
     ON CONFLICT (institution_id, cohort_id, sync_id)
       DO UPDATE SET pages = full_syncs.pages + (CASE WHEN full_syncs.status = 'open' THEN 1 ELSE 0 END)
     RETURNING ${syncRowColumns}`,
    [page.institutionId, page.cohortId, page.syncId, page.now],
  );
  return rows[0];
}

/** Records the students this page named as seen by the sync. */
export async function insertSeen(tx: Queryable, page: SyncPage, syncId: string): Promise<void> {
  await tx.query(
    `INSERT INTO full_sync_seen (full_sync_id, student_id)
     SELECT $4, named.id FROM (${namedStudents}) named
     ON CONFLICT DO NOTHING`,
    [page.institutionId, JSON.stringify(page.keys.emails), JSON.stringify(page.keys.externalIds), syncId],
  );
}

/** The cohort's active students no page named become the sync's departures; returns how many. */
export async function insertUnnamedDepartures(
  tx: Queryable,
  page: SyncPage,
  syncId: string,
): Promise<number> {
  const departed = await tx.query(
    `INSERT INTO full_sync_departures (full_sync_id, student_id)
     SELECT $3, s.id FROM students s
     WHERE s.institution_id = $1 AND s.cohort_id = $2 AND s.departed_at IS NULL
       AND NOT EXISTS (SELECT 1 FROM full_sync_seen seen WHERE seen.full_sync_id = $3 AND seen.student_id = s.id)`,
    [page.institutionId, page.cohortId, syncId],
  );
  return departed.rowCount;
}

export async function countActiveInCohort(tx: Queryable, page: SyncPage): Promise<number> {
  const { rows } = await tx.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM students WHERE institution_id = $1 AND cohort_id = $2 AND departed_at IS NULL',
    [page.institutionId, page.cohortId],
  );
  return rows[0].n;
}

/** Closes the sync with its outcome. */
export async function finishFullSync(
  tx: Queryable,
  syncId: string,
  end: { status: 'held' | 'applied'; cohortSize: number; departures: number; threshold: number; at: Date },
): Promise<FullSyncRow> {
  const { rows } = await tx.query<FullSyncRow>(
    `UPDATE full_syncs SET status = $2, cohort_size = $3, departures = $4, threshold = $5, finished_at = $6
     WHERE id = $1 RETURNING ${syncRowColumns}`,
    [syncId, end.status, end.cohortSize, end.departures, end.threshold, end.at],
  );
  return rows[0];
}

/** A dry run's count: the cohort's active students, and those a final page would depart. */
export async function previewDepartures(
  q: Queryable,
  page: SyncPage,
): Promise<{ would_depart: number; cohort_size: number }> {
  const { rows } = await q.query<{ would_depart: number; cohort_size: number }>(
    `WITH named AS (${namedStudents}),
     seen AS (
       SELECT seen.student_id AS id FROM full_sync_seen seen JOIN full_syncs f ON f.id = seen.full_sync_id
       WHERE f.institution_id = $1 AND f.cohort_id = $4 AND f.sync_id = $5 AND f.status = 'open'
     )
     SELECT count(*) FILTER (WHERE s.id NOT IN (SELECT id FROM named) AND s.id NOT IN (SELECT id FROM seen))::int
              AS would_depart,
            count(*)::int AS cohort_size
     FROM students s WHERE s.institution_id = $1 AND s.cohort_id = $4 AND s.departed_at IS NULL`,
    [
      page.institutionId,
      JSON.stringify(page.keys.emails),
      JSON.stringify(page.keys.externalIds),
      page.cohortId,
      page.syncId,
    ],
  );
  return rows[0];
}
