// Institutions bound to their database: the functions of ./institutions.ts and ./listings.ts
// under the names every caller uses (`services.institutions.<name>`): the request context, the
// roster feed, the CLI and the benchmarks. Nothing is decided here. The shapes are ./schemas.ts.

import type { Db } from '../../db/db.ts';
import type { KeysetPage } from '../../db/keyset.ts';
import type { Caller } from '../access/policy.ts';
import { archiveInstitution, restoreInstitution, setCohortArchive } from './archiving.ts';
import {
  cohortById,
  createCohort,
  createInstitution,
  getCohort,
  institutionBySlug,
  listCohorts,
  listInstitutions,
  requireInstitution,
  updateCohort,
  updateInstitution,
} from './institutions.ts';
import { getStudent, listAudienceTags, listCampuses, listPrograms, listStudents } from './listings.ts';
import { selectInstitutionBySlug } from './queries.ts';
import type { ArchivedFilter, CohortClock, StudentFilter } from './schemas.ts';

export { checkStartDate, checkTimeZone, cohortOrder, institutionOrder } from './institutions.ts';
export { audienceTagOrder, campusOrder, programOrder, studentOrder } from './listings.ts';
export type {
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

export function createInstitutionsService(db: Db) {
  return {
    /** The institution with this slug (the slug is not checked: see bySlugIfValid). */
    bySlug: (slug: string) => selectInstitutionBySlug(db, slug),
    /** The institution named by slug, or 404 institution_not_found. */
    requireBySlug: (slug: string) => requireInstitution(db, slug),
    /** The institution named by slug; undefined for an unknown or malformed slug. */
    bySlugIfValid: (slug: string) => institutionBySlug(db, slug),
    create: (input: { slug: string; name: string; time_zone?: string }) => createInstitution(db, input),
    /** Renames an institution or changes its time zone; fields not given are kept. */
    update: (institutionId: string, changes: { name?: string; time_zone?: string }, by: Caller) =>
      updateInstitution(db, institutionId, changes, by),
    /** A page of the institutions: the active ones unless `archived` says. */
    list: (page: KeysetPage & { archived?: ArchivedFilter }) => listInstitutions(db, page),
    /** Archives an institution (idempotent; docs/archiving.md). */
    archive: (institutionId: string) => archiveInstitution(db, institutionId),
    /** Restores an archived institution (idempotent). */
    restore: (institutionId: string) => restoreInstitution(db, institutionId),
    createCohort: (
      institutionId: string,
      input: { name: string; clock: CohortClock; startDate?: string | null },
    ) => createCohort(db, institutionId, input),
    /** Changes a cohort's name, clock or start date (null clears it); absent fields stay. */
    updateCohort: (
      institutionId: string,
      cohortId: string,
      input: { name?: string; clock?: CohortClock; startDate?: string | null },
    ) => updateCohort(db, institutionId, cohortId, input),
    /** A page of the institution's cohorts: the active ones unless `archived` says. */
    listCohorts: (institutionId: string, page: KeysetPage & { archived?: ArchivedFilter }) =>
      listCohorts(db, institutionId, page),
    /** Archives (`archive`) or restores a cohort of the institution (idempotent). */
    setCohortArchive: (institutionId: string, cohortId: string, archive: boolean) =>
      setCohortArchive(db, institutionId, cohortId, archive),
    /** A cohort of the institution; another institution's is cohort_not_found like an unknown id. */
    getCohort: (institutionId: string, cohortId: string) => getCohort(db, institutionId, cohortId),
    /** A cohort by id, or undefined when absent (or the id is not a UUID). */
    cohort: (cohortId: string) => cohortById(db, cohortId),
    listStudents: (institutionId: string, page: KeysetPage & StudentFilter) =>
      listStudents(db, institutionId, page),
    getStudent: (institutionId: string, studentId: string) => getStudent(db, institutionId, studentId),
    listPrograms: (institutionId: string, page: KeysetPage) => listPrograms(db, institutionId, page),
    listCampuses: (institutionId: string, page: KeysetPage) => listCampuses(db, institutionId, page),
    listAudienceTags: (institutionId: string, page: KeysetPage) => listAudienceTags(db, institutionId, page),
  };
}

export type InstitutionsService = ReturnType<typeof createInstitutionsService>;
