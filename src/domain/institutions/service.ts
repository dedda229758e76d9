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
  created_at: Date;
}

export const slugPattern = /^[a-z0-9][a-z0-9-]{0,62}$/;
export const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface Page {
  limit: number;
  offset: number;
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

    async createCohort(institutionId: string, input: { name: string; clock: CohortClock }): Promise<Cohort> {
      const { rows } = await db.query<Cohort>(
        `INSERT INTO cohorts (institution_id, name, clock) VALUES ($1, $2, $3)
         RETURNING id, institution_id, name, clock, created_at`,
        [institutionId, input.name, input.clock],
      );
      return rows[0];
    },

    async listCohorts(institutionId: string, page: Page): Promise<Cohort[]> {
      const { rows } = await db.query<Cohort>(
        `SELECT id, institution_id, name, clock, created_at FROM cohorts
         WHERE institution_id = $1 ORDER BY created_at, id LIMIT $2 OFFSET $3`,
        [institutionId, page.limit, page.offset],
      );
      return rows;
    },

    /** A cohort by id, or undefined when absent (or the id is not a UUID). */
    async cohort(cohortId: string): Promise<Cohort | undefined> {
      if (!uuidPattern.test(cohortId)) return undefined;
      const { rows } = await db.query<Cohort>(
        'SELECT id, institution_id, name, clock, created_at FROM cohorts WHERE id = $1',
        [cohortId],
      );
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
