// Institutions (tenants) and their cohorts, plus the read-only listings the console shows.

import { type Db, PgErrorCode, pgErrorCode } from '../../db/db.ts';
import { type KeysetPage, keysetPage, type Paged } from '../../db/keyset.ts';
import { ApiError } from '../../errors.ts';
import type { CursorKey, KeysetOrder } from '../../lib/cursor.ts';
import { slugPattern, uuidPattern } from '../../lib/ids.ts';
import { canonicalTimeZone } from '../../lib/time-zones.ts';
import { institutionNotFound } from '../access/policy.ts';

export interface Institution {
  id: string;
  slug: string;
  name: string;
  /** IANA time zone the student pages count days in (default UTC). */
  time_zone: string;
  created_at: Date;
}

const institutionColumns = 'id, slug, name, time_zone, created_at';

/** A time zone as stored: its canonical IANA name, or 400 invalid_field naming `time_zone`. */
export function checkTimeZone(value: string): string {
  const zone = canonicalTimeZone(value);
  if (!zone) {
    throw new ApiError('invalid_field', {
      field: 'time_zone',
      detail: `"${value.slice(0, 64)}" is not a time zone; use an IANA name such as Australia/Sydney or UTC`,
    });
  }
  return zone;
}

export type CohortClock = 'cohort' | 'individual';

export interface Cohort {
  id: string;
  institution_id: string;
  name: string;
  clock: CohortClock;
  /** First day of the six weeks of a `cohort`-clock cohort (YYYY-MM-DD), or null. */
  start_date: string | null;
  created_at: Date;
}

const cohortColumns = `id, institution_id, name, clock, to_char(start_date, 'YYYY-MM-DD') AS start_date, created_at`;

const cohortNotFound = (id: string) =>
  new ApiError('cohort_not_found', { detail: `no cohort with id "${id}" in this institution` });

const studentNotFound = (id: string) =>
  new ApiError('student_not_found', { detail: `no student with id "${id}" in this institution` });

/** The listings' orders; a cursor of one is refused by the others. */
export const institutionOrder: KeysetOrder = { listing: 'institutions', key: ['text'] };
export const cohortOrder: KeysetOrder = { listing: 'cohorts', key: ['timestamp', 'uuid'] };
export const studentOrder: KeysetOrder = { listing: 'students', key: ['text'] };
export const programOrder: KeysetOrder = { listing: 'programs', key: ['text'] };
export const campusOrder: KeysetOrder = { listing: 'campuses', key: ['text'] };
export const audienceTagOrder: KeysetOrder = { listing: 'audience-tags', key: ['text', 'text', 'uuid'] };

export interface StudentListing {
  id: string;
  cohort_id: string;
  email: string;
  student_id_ext: string;
  first_name: string | null;
  last_name: string | null;
  program_code: string | null;
  campus_name: string | null;
  first_in_family: boolean | null;
  start_date: string | null;
  /** ISO 8601 UTC (see isoTime). */
  departed_at: string | null;
  created_at: string;
  updated_at: string;
}

const datePattern = /^\d{4}-\d{2}-\d{2}$/;

/**
 * A start date as YYYY-MM-DD that exists in the calendar (2026-02-30 is refused rather than
 * rolled over), between 1900 and 2200; null and undefined pass through.
 */
export function checkStartDate(value: string | null | undefined): string | null | undefined {
  if (value === null || value === undefined) return value;
  const ms = datePattern.test(value) ? Date.parse(`${value}T00:00:00Z`) : Number.NaN;
  if (
    !Number.isFinite(ms) ||
    !new Date(ms).toISOString().startsWith(value) ||
    ms < Date.UTC(1900, 0, 1) ||
    ms > Date.UTC(2200, 0, 1)
  ) {
    throw new ApiError('invalid_field', {
      field: 'start_date',
      detail: 'start_date must be a date written YYYY-MM-DD, for example 2026-09-07',
    });
  }
  return value;
}

export interface StudentFilter {
  /** Case-insensitive prefix of the email, external id, full name or last name. */
  q?: string;
  cohortId?: string;
  /** Exact email, case-insensitive. */
  email?: string;
  /** Exact external (SIS) id. */
  studentIdExt?: string;
  /** Program code, case-insensitive. */
  program?: string;
  /** Campus name, case-insensitive. */
  campus?: string;
  status?: 'active' | 'departed';
}

export interface ProgramListing {
  id: string;
  program_code: string;
  name: string | null;
  coordinator_name: string | null;
  coordinator_title: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface CampusListing {
  id: string;
  name: string;
  created_at: Date;
  updated_at: Date;
}

export interface AudienceTagListing {
  id: string;
  kind: 'program' | 'campus';
  source_id: string;
  label: string;
  created_at: Date;
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

export function createInstitutionsService(db: Db) {
  async function bySlug(slug: string): Promise<Institution | undefined> {
    const { rows } = await db.query<Institution>(
      `SELECT ${institutionColumns} FROM institutions WHERE slug = $1`,
      [slug],
    );
    return rows[0];
  }

  /** The institution named by slug, or 404 institution_not_found. */
  async function requireBySlug(slug: string): Promise<Institution> {
    const institution = slugPattern.test(slug) ? await bySlug(slug) : undefined;
    if (!institution) throw institutionNotFound(slug);
    return institution;
  }

  return {
    bySlug,
    requireBySlug,
    /** The institution named by slug; undefined for an unknown or malformed slug. */
    bySlugIfValid: (slug: string) => (slugPattern.test(slug) ? bySlug(slug) : Promise.resolve(undefined)),

    async create(input: { slug: string; name: string; time_zone?: string }): Promise<Institution> {
      const zone = checkTimeZone(input.time_zone ?? 'UTC');
      try {
        const { rows } = await db.query<Institution>(
          `INSERT INTO institutions (slug, name, time_zone) VALUES ($1, $2, $3) RETURNING ${institutionColumns}`,
          [input.slug, input.name, zone],
        );
        return rows[0];
      } catch (error) {
        if (pgErrorCode(error) === PgErrorCode.uniqueViolation) {
          throw new ApiError('conflict', {
            detail: `an institution with slug "${input.slug}" exists already`,
          });
        }
        throw error;
      }
    },

    /** Renames an institution or changes its time zone; fields not given are kept. */
    async update(
      institutionId: string,
      changes: { name?: string; time_zone?: string },
    ): Promise<Institution> {
      const zone = changes.time_zone === undefined ? null : checkTimeZone(changes.time_zone);
      const { rows } = await db.query<Institution>(
        `UPDATE institutions SET name = COALESCE($2, name), time_zone = COALESCE($3, time_zone)
         WHERE id = $1 RETURNING ${institutionColumns}`,
        [institutionId, changes.name ?? null, zone],
      );
      return rows[0];
    },

    async list(page: KeysetPage): Promise<Paged<Institution>> {
      const { rows } = await db.query<Institution & { sort_key: CursorKey }>(
        `SELECT ${institutionColumns}, json_build_array(slug) AS sort_key FROM institutions
         WHERE $1::text IS NULL OR slug > $1::text ORDER BY slug LIMIT $2`,
        [page.after?.[0] ?? null, page.limit + 1],
      );
      return keysetPage(rows, page.limit);
    },

    async createCohort(
      institutionId: string,
      input: { name: string; clock: CohortClock; startDate?: string | null },
    ): Promise<Cohort> {
      const startDate = checkStartDate(input.startDate);
      const { rows } = await db.query<Cohort>(
        `INSERT INTO cohorts (institution_id, name, clock, start_date) VALUES ($1, $2, $3, $4::date)
         RETURNING ${cohortColumns}`,
        [institutionId, input.name, input.clock, startDate ?? null],
      );
      return rows[0];
    },

    /** Changes a cohort's name, clock or start date (null clears it); absent fields stay. */
    async updateCohort(
      institutionId: string,
      cohortId: string,
      input: { name?: string; clock?: CohortClock; startDate?: string | null },
    ): Promise<Cohort> {
      if (!uuidPattern.test(cohortId)) throw cohortNotFound(cohortId);
      const startDate = checkStartDate(input.startDate);
      const { rows } = await db.query<Cohort>(
        `UPDATE cohorts SET name = coalesce($3, name), clock = coalesce($4, clock),
           start_date = CASE WHEN $5 THEN $6::date ELSE start_date END
         WHERE institution_id = $1 AND id = $2
         RETURNING ${cohortColumns}`,
        [
          institutionId,
          cohortId,
          input.name ?? null,
          input.clock ?? null,
          startDate !== undefined,
          startDate ?? null,
        ],
      );
      if (!rows[0]) throw cohortNotFound(cohortId);
      return rows[0];
    },

    async listCohorts(institutionId: string, page: KeysetPage): Promise<Paged<Cohort>> {
      const { rows } = await db.query<Cohort & { sort_key: CursorKey }>(
        `SELECT ${cohortColumns}, json_build_array(created_at, id) AS sort_key
         FROM cohorts
         WHERE institution_id = $1 AND ($2::timestamptz IS NULL OR (created_at, id) > ($2::timestamptz, $3::uuid))
         ORDER BY created_at, id LIMIT $4`,
        [institutionId, page.after?.[0] ?? null, page.after?.[1] ?? null, page.limit + 1],
      );
      return keysetPage(rows, page.limit);
    },

    /** A cohort of the institution; another institution's is cohort_not_found like an unknown id. */
    async getCohort(institutionId: string, cohortId: string): Promise<Cohort> {
      if (!uuidPattern.test(cohortId)) throw cohortNotFound(cohortId);
      const { rows } = await db.query<Cohort>(
        `SELECT ${cohortColumns} FROM cohorts WHERE institution_id = $1 AND id = $2`,
        [institutionId, cohortId],
      );
      if (!rows[0]) throw cohortNotFound(cohortId);
      return rows[0];
    },

    /** A cohort by id, or undefined when absent (or the id is not a UUID). */
    async cohort(cohortId: string): Promise<Cohort | undefined> {
      if (!uuidPattern.test(cohortId)) return undefined;
      const { rows } = await db.query<Cohort>(`SELECT ${cohortColumns} FROM cohorts WHERE id = $1`, [
        cohortId,
      ]);
      return rows[0];
    },

    /**
     * Students by email (case-insensitive, unique per institution). The filters combine; `q`
     * is a prefix search served by the prefix indexes of migration 0013.
     */
    async listStudents(
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
         LEFT JOIN programs p ON p.id = s.program_id AND p.institution_id = s.institution_id
         LEFT JOIN campuses c ON c.id = s.campus_id AND c.institution_id = s.institution_id
         WHERE ${where.join(' AND ')}
         ORDER BY lower(s.email) LIMIT ${param(page.limit + 1)}`,
        params,
      );
      return keysetPage(rows, page.limit);
    },

    /** A student of the institution; another institution's is student_not_found like an unknown id. */
    async getStudent(institutionId: string, studentId: string): Promise<StudentListing> {
      if (!uuidPattern.test(studentId)) throw studentNotFound(studentId);
      const { rows } = await db.query<StudentListing>(
        `SELECT ${studentColumns} FROM students s
         LEFT JOIN programs p ON p.id = s.program_id AND p.institution_id = s.institution_id
         LEFT JOIN campuses c ON c.id = s.campus_id AND c.institution_id = s.institution_id
         WHERE s.institution_id = $1 AND s.id = $2`,
        [institutionId, studentId],
      );
      if (!rows[0]) throw studentNotFound(studentId);
      return rows[0];
    },

    async listPrograms(institutionId: string, page: KeysetPage): Promise<Paged<ProgramListing>> {
      const { rows } = await db.query<ProgramListing & { sort_key: CursorKey }>(
        `SELECT id, code AS program_code, name, coordinator_name, coordinator_title, created_at, updated_at,
                json_build_array(lower(code)) AS sort_key
         FROM programs WHERE institution_id = $1 AND ($2::text IS NULL OR lower(code) > $2::text)
         ORDER BY lower(code) LIMIT $3`,
        [institutionId, page.after?.[0] ?? null, page.limit + 1],
      );
      return keysetPage(rows, page.limit);
    },

    async listCampuses(institutionId: string, page: KeysetPage): Promise<Paged<CampusListing>> {
      const { rows } = await db.query<CampusListing & { sort_key: CursorKey }>(
        `SELECT id, name, created_at, updated_at, json_build_array(lower(name)) AS sort_key
         FROM campuses WHERE institution_id = $1 AND ($2::text IS NULL OR lower(name) > $2::text)
         ORDER BY lower(name) LIMIT $3`,
        [institutionId, page.after?.[0] ?? null, page.limit + 1],
      );
      return keysetPage(rows, page.limit);
    },

    async listAudienceTags(institutionId: string, page: KeysetPage): Promise<Paged<AudienceTagListing>> {
      const { rows } = await db.query<AudienceTagListing & { sort_key: CursorKey }>(
        `SELECT id, kind, source_id, label, created_at, json_build_array(kind, lower(label), id) AS sort_key
         FROM audience_tags
         WHERE institution_id = $1
           AND ($2::text IS NULL OR (kind, lower(label), id) > ($2::text, $3::text, $4::uuid))
         ORDER BY kind, lower(label), id LIMIT $5`,
        [
          institutionId,
          page.after?.[0] ?? null,
          page.after?.[1] ?? null,
          page.after?.[2] ?? null,
          page.limit + 1,
        ],
      );
      return keysetPage(rows, page.limit);
    },
  };
}

export type InstitutionsService = ReturnType<typeof createInstitutionsService>;
