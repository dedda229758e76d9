// Institutions (tenants) and their cohorts, plus the read-only listings the console shows.

import { type Db, PgErrorCode, pgErrorCode } from '../../db/db.ts';
import { ApiError } from '../../errors.ts';
import { institutionNotFound } from '../access/policy.ts';

export interface Institution {
  id: string;
  slug: string;
  name: string;
  created_at: Date;
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

export const slugPattern = /^[a-z0-9][a-z0-9-]{0,62}$/;
export const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface Page {
  limit: number;
  offset: number;
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

export function createInstitutionsService(db: Db) {
  async function bySlug(slug: string): Promise<Institution | undefined> {
    const { rows } = await db.query<Institution>(
      'SELECT id, slug, name, created_at FROM institutions WHERE slug = $1',
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

    async create(input: { slug: string; name: string }): Promise<Institution> {
      try {
        const { rows } = await db.query<Institution>(
          'INSERT INTO institutions (slug, name) VALUES ($1, $2) RETURNING id, slug, name, created_at',
          [input.slug, input.name],
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

    async list(page: Page): Promise<Institution[]> {
      const { rows } = await db.query<Institution>(
        'SELECT id, slug, name, created_at FROM institutions ORDER BY slug LIMIT $1 OFFSET $2',
        [page.limit, page.offset],
      );
      return rows;
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

    async listCohorts(institutionId: string, page: Page): Promise<Cohort[]> {
      const { rows } = await db.query<Cohort>(
        `SELECT ${cohortColumns} FROM cohorts
         WHERE institution_id = $1 ORDER BY created_at, id LIMIT $2 OFFSET $3`,
        [institutionId, page.limit, page.offset],
      );
      return rows;
    },

    /** A cohort by id, or undefined when absent (or the id is not a UUID). */
    async cohort(cohortId: string): Promise<Cohort | undefined> {
      if (!uuidPattern.test(cohortId)) return undefined;
      const { rows } = await db.query<Cohort>(`SELECT ${cohortColumns} FROM cohorts WHERE id = $1`, [
        cohortId,
      ]);
      return rows[0];
    },

    async listStudents(
      institutionId: string,
      page: Page & { cohortId?: string; email?: string; status?: 'active' | 'departed' },
    ) {
      const { rows } = await db.query<Record<string, unknown>>(
        `SELECT s.id, s.cohort_id, s.email, s.student_id_ext, s.first_name, s.last_name,
                p.code AS program_code, c.name AS campus_name, s.first_in_family,
                to_char(s.start_date, 'YYYY-MM-DD') AS start_date, s.departed_at, s.created_at, s.updated_at
         FROM students s
         LEFT JOIN programs p ON p.id = s.program_id AND p.institution_id = s.institution_id
         LEFT JOIN campuses c ON c.id = s.campus_id AND c.institution_id = s.institution_id
         WHERE s.institution_id = $1
           AND ($2::uuid IS NULL OR s.cohort_id = $2::uuid)
           AND ($3::text IS NULL OR lower(s.email) = lower($3::text))
           AND ($6::text IS NULL OR (s.departed_at IS NULL) = ($6::text = 'active'))
         ORDER BY lower(s.email) LIMIT $4 OFFSET $5`,
        [
          institutionId,
          page.cohortId ?? null,
          page.email ?? null,
          page.limit,
          page.offset,
          page.status ?? null,
        ],
      );
      return rows;
    },

    async listPrograms(institutionId: string, page: Page) {
      const { rows } = await db.query<Record<string, unknown>>(
        `SELECT id, code AS program_code, name, coordinator_name, coordinator_title, created_at, updated_at
         FROM programs WHERE institution_id = $1 ORDER BY lower(code) LIMIT $2 OFFSET $3`,
        [institutionId, page.limit, page.offset],
      );
      return rows;
    },

    async listCampuses(institutionId: string, page: Page) {
      const { rows } = await db.query<Record<string, unknown>>(
        `SELECT id, name, created_at, updated_at
         FROM campuses WHERE institution_id = $1 ORDER BY lower(name) LIMIT $2 OFFSET $3`,
        [institutionId, page.limit, page.offset],
      );
      return rows;
    },

    async listAudienceTags(institutionId: string, page: Page) {
      const { rows } = await db.query<Record<string, unknown>>(
        `SELECT id, kind, source_id, label, created_at
         FROM audience_tags WHERE institution_id = $1 ORDER BY kind, lower(label) LIMIT $2 OFFSET $3`,
        [institutionId, page.limit, page.offset],
      );
      return rows;
    },
  };
}

export type InstitutionsService = ReturnType<typeof createInstitutionsService>;
