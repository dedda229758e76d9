// Archiving (docs/archiving.md): an institution or a cohort made by mistake is archived, never
// deleted, and can be restored. The rules live here, each in one function:
// - `refuseArchivedInstitution` and `refuseArchivedCohort`: what a push into an archived one is
//   told (409 institution_archived / cohort_archived and a sentence). The SIS feeds' access
//   (src/domain/roster/feed-access.ts), help-sync's authentication and the request context call
//   them; nothing else decides it;
// - `refuseWhileArchived`: what a person, the operator or a student may do in an archived
//   institution (the request context asks it once per request, after the access policy): read,
//   for its admins, staff and the operator; change nothing, except the operator restoring it;
//   students are told the service is not available;
// - the workers' claims skip archived institutions in their own queries (calendar fetches,
//   OneRoster pulls, webhook deliveries, notification emails), set-based.
// Archiving and restoring are idempotent: archiving an archived one keeps its first date.
import type { Db } from '../../db/db.ts';
import { ApiError } from '../../errors.ts';
import { uuidPattern } from '../../lib/ids.ts';
import type { Access, Caller } from '../access/policy.ts';
import { cohortNotFound } from './institutions.ts';
import { setCohortArchived, setInstitutionArchived } from './queries.ts';
import type { Cohort, Institution } from './schemas.ts';

type Stamp = Date | string | null;

/** A date as the sentences write it: 2026-11-25. */
const dayOf = (at: Date | string) => new Date(at).toISOString().slice(0, 10);

/** The refusal of anything but reading in an archived institution (pushes, writes). */
export function institutionArchived(institution: { slug: string; archived_at: Stamp }): ApiError {
  const at = institution.archived_at ?? new Date();
  return new ApiError('institution_archived', {
    archived_at: new Date(at).toISOString(),
    detail:
      `the institution "${institution.slug}" was archived on ${dayOf(at)} by the operator: ` +
      'it accepts no pushes or changes until the operator restores it',
  });
}

/** Throws 409 institution_archived when the institution is archived. */
export function refuseArchivedInstitution(institution: { slug: string; archived_at: Stamp }): void {
  if (institution.archived_at) throw institutionArchived(institution);
}

/** Throws 409 cohort_archived when the cohort is archived; its students stay as they are. */
export function refuseArchivedCohort(cohort: { id: string; name: string; archived_at: Stamp }): void {
  if (!cohort.archived_at) return;
  throw new ApiError('cohort_archived', {
    field: 'cohort_id',
    cohort_id: cohort.id,
    archived_at: new Date(cohort.archived_at).toISOString(),
    detail:
      `the cohort "${cohort.name}" was archived on ${dayOf(cohort.archived_at)}: it accepts no pushes until ` +
      'an admin restores it (its students stay)',
  });
}

/** What a student of an archived institution is told on every student page. */
const serviceUnavailable = () =>
  new ApiError('institution_archived', {
    detail:
      'This service is not available at the moment. For help, contact your institution’s student support directly.',
  });

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Throws when a request may not proceed because its institution is archived: a student page of
 * an archived institution's student, or a state-changing request on an archived institution's
 * path, unless the route is one that archives or restores it (`allowedWhileArchived`).
 */
export function refuseWhileArchived(request: {
  method: string;
  access: Access;
  caller: Caller | undefined;
  institution: { slug: string; archived_at: Stamp } | undefined;
  allowedWhileArchived: boolean;
}): void {
  const { caller, institution } = request;
  if (request.access === 'student' && caller?.kind === 'student' && caller.institutionArchivedAt)
    throw serviceUnavailable();
  if (!institution?.archived_at || request.allowedWhileArchived || SAFE_METHODS.has(request.method)) return;
  throw institutionArchived(institution);
}

/** Archives an institution (the operator): its pushes and background work stop; nothing is deleted. */
export function archiveInstitution(db: Db, institutionId: string, now = new Date()): Promise<Institution> {
  return setInstitutionArchived(db, institutionId, true, now);
}

/** Restores an archived institution: pushes, writes and its background work resume. */
export function restoreInstitution(db: Db, institutionId: string, now = new Date()): Promise<Institution> {
  return setInstitutionArchived(db, institutionId, false, now);
}

/** Archives (`archive`) or restores a cohort of the institution; another institution's is 404. */
export async function setCohortArchive(
  db: Db,
  institutionId: string,
  cohortId: string,
  archive: boolean,
  now = new Date(),
): Promise<Cohort> {
  if (!uuidPattern.test(cohortId)) throw cohortNotFound(cohortId);
  const cohort = await setCohortArchived(db, institutionId, cohortId, archive, now);
  if (!cohort) throw cohortNotFound(cohortId);
  return cohort;
}
