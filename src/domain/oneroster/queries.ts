// SQL of the OneRoster memory (migration 0071): what completed pushes and pulls placed.
import type { Queryable } from '../../db/db.ts';

/** An institution's whole memory (tens of thousands of small rows: one read per push or pull). */
const LOAD_SQL = `
SELECT kind, sourced_id, data FROM oneroster_memory WHERE institution_id = $1`;

/**
 * Changed entries written, a page at a time (a fixed number of statements per page): parallel
 * arrays, which PostgreSQL reads faster than a JSON array of records (measured: 80,000 entries
 * in 3.7 s against 5.7 s on PostgreSQL, 8.8 s against 9.5 s on PGlite, loaded machine).
 */
const UPSERT_SQL = `
INSERT INTO oneroster_memory (institution_id, kind, sourced_id, data, student_id_ext, updated_at)
SELECT $1, r.kind, r.sourced_id, r.data, r.student, $6
FROM unnest($2::text[], $3::text[], $4::jsonb[], $5::text[]) AS r(kind, sourced_id, data, student)
ON CONFLICT (institution_id, kind, sourced_id) DO UPDATE
  SET data = EXCLUDED.data, student_id_ext = EXCLUDED.student_id_ext, updated_at = EXCLUDED.updated_at`;

/** Forgotten entries removed, a page at a time. */
const FORGET_SQL = `
DELETE FROM oneroster_memory m
USING jsonb_to_recordset($2::jsonb) AS r(kind text, sourced_id text)
WHERE m.institution_id = $1 AND m.kind = r.kind AND m.sourced_id = r.sourced_id`;

/** A page of the memory in (kind, sourced_id) order, after the given key (the push client reads it). */
const READ_PAGE_SQL = `
SELECT kind, sourced_id, data FROM oneroster_memory
WHERE institution_id = $1 AND (kind, sourced_id) > ($2, $3) AND ($5::text[] IS NULL OR kind = ANY($5))
ORDER BY kind, sourced_id LIMIT $4`;

/** A stored entry as the memory's statements read it. */
export interface MemoryRow {
  kind: string;
  sourced_id: string;
  data: Record<string, unknown>;
}

export async function selectMemory(db: Queryable, institutionId: string): Promise<MemoryRow[]> {
  return (await db.query<MemoryRow>(LOAD_SQL, [institutionId])).rows;
}

/** Upserts one page of entries, given as parallel arrays. */
export async function upsertMemory(
  db: Queryable,
  institutionId: string,
  page: { kinds: string[]; sourcedIds: string[]; data: string[]; students: (string | null)[] },
  at: Date,
): Promise<void> {
  await db.query(UPSERT_SQL, [institutionId, page.kinds, page.sourcedIds, page.data, page.students, at]);
}

/** Removes one page of forgotten entries ({kind, sourced_id} records). */
export async function forgetMemory(db: Queryable, institutionId: string, keys: object[]): Promise<void> {
  await db.query(FORGET_SQL, [institutionId, JSON.stringify(keys)]);
}

export async function selectMemoryPage(
  db: Queryable,
  institutionId: string,
  after: { kind: string; sourced_id: string } | undefined,
  limit: number,
  /** Only these kinds (all when undefined). */
  kinds?: string[],
): Promise<MemoryRow[]> {
  return (
    await db.query<MemoryRow>(READ_PAGE_SQL, [
      institutionId,
      after?.kind ?? '',
      after?.sourced_id ?? '',
      limit,
      kinds ?? null,
    ])
  ).rows;
}

/**
 * What each of a page of enrollments placed, as the memory holds it (only those it holds): the
 * push client asks for each page of its enrollments instead of reading every one before the push.
 */
const PLACED_SQL = `
SELECT m.sourced_id, m.data FROM oneroster_memory m
WHERE m.institution_id = $1 AND m.kind = 'enrollment' AND m.sourced_id = ANY($2::text[])`;

export async function selectPlaced(
  db: Queryable,
  institutionId: string,
  sourcedIds: string[],
): Promise<{ sourced_id: string; data: Record<string, unknown> }[]> {
  return (
    await db.query<{ sourced_id: string; data: Record<string, unknown> }>(PLACED_SQL, [
      institutionId,
      sourcedIds,
    ])
  ).rows;
}

/** A push's changed entries staged (data null: to forget), a page at a time, as UPSERT_SQL. */
const STAGE_SQL = `
INSERT INTO oneroster_memory_staged (institution_id, push_id, kind, sourced_id, data, student_id_ext, staged_at)
SELECT $1, $2, r.kind, r.sourced_id, r.data, r.student, $7
FROM unnest($3::text[], $4::text[], $5::jsonb[], $6::text[]) AS r(kind, sourced_id, data, student)
ON CONFLICT (institution_id, push_id, kind, sourced_id) DO UPDATE
  SET data = EXCLUDED.data, student_id_ext = EXCLUDED.student_id_ext, staged_at = EXCLUDED.staged_at`;

export async function stageMemory(
  db: Queryable,
  institutionId: string,
  pushId: string,
  page: { kinds: string[]; sourcedIds: string[]; data: (string | null)[]; students: (string | null)[] },
  at: Date,
): Promise<void> {
  await db.query(STAGE_SQL, [
    institutionId,
    pushId,
    page.kinds,
    page.sourcedIds,
    page.data,
    page.students,
    at,
  ]);
}

/** A push's staged entries made current: upserted, and those staged as forgotten removed. */
const COMMIT_UPSERT_SQL = `
INSERT INTO oneroster_memory (institution_id, kind, sourced_id, data, student_id_ext, updated_at)
SELECT institution_id, kind, sourced_id, data, student_id_ext, $3
FROM oneroster_memory_staged
WHERE institution_id = $1 AND push_id = $2 AND data IS NOT NULL
ON CONFLICT (institution_id, kind, sourced_id) DO UPDATE
  SET data = EXCLUDED.data, student_id_ext = EXCLUDED.student_id_ext, updated_at = EXCLUDED.updated_at`;

const COMMIT_FORGET_SQL = `
DELETE FROM oneroster_memory m
USING oneroster_memory_staged s
WHERE s.institution_id = $1 AND s.push_id = $2 AND s.data IS NULL
  AND m.institution_id = s.institution_id AND m.kind = s.kind AND m.sourced_id = s.sourced_id`;

/** The push's staged rows once made current, and any push's left a day ago (one that never completed). */
const DROP_STAGED_SQL = `
DELETE FROM oneroster_memory_staged
WHERE institution_id = $1 AND (push_id = $2 OR staged_at < $3::timestamptz - interval '1 day')`;

export async function commitStaged(
  db: Queryable,
  institutionId: string,
  pushId: string,
  at: Date,
): Promise<{ stored: number; forgotten: number }> {
  const stored = (await db.query(COMMIT_UPSERT_SQL, [institutionId, pushId, at])).rowCount ?? 0;
  const forgotten = (await db.query(COMMIT_FORGET_SQL, [institutionId, pushId])).rowCount ?? 0;
  await db.query(DROP_STAGED_SQL, [institutionId, pushId, at]);
  return { stored, forgotten };
}
