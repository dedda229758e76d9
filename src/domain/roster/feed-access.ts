// Who may push into an institution through the SIS feeds (roster and enrolments), decided in
// one place (spec section 5, rules 2, 3 and 8):
// - an institution secret reaches only its own institution;
// - the bootstrap secret reaches only institutions never issued a secret of their own (once
//   one was issued, active or revoked, the institution answers to its own secret only).
// The two feeds name their target differently, so they report a refusal differently, and each
// never tells an institution secret whether another institution's target exists:
// - roster (cohort_id): 404 cohort_not_found for a cohort of another institution, the same as
//   for a cohort that does not exist (spec 4.1); the bootstrap secret on an institution with
//   its own secret is 401;
// - enrolments (institution slug): 401 for another institution's slug (spec 4.2 rule 4); the
//   bootstrap secret is told plainly that a slug is unknown (404 institution_not_found).
// Once the caller may push there, an archived institution (409 institution_archived) or an
// archived cohort (409 cohort_archived) refuses the push (src/domain/institutions/archiving.ts):
// only a caller who may push into an institution learns that it is archived.
import { ApiError } from '../../errors.ts';
import { slugPattern } from '../../lib/ids.ts';
import { refuseArchivedCohort, refuseArchivedInstitution } from '../institutions/archiving.ts';
import type { CohortOfInstitution, Institution } from '../institutions/service.ts';
import type { RosterCaller } from '../secrets/roster-secrets.ts';

export interface FeedAccessDeps {
  institutions: {
    cohort(cohortId: string): Promise<CohortOfInstitution | undefined>;
    bySlug(slug: string): Promise<Institution | undefined>;
  };
  rosterSecrets: { mayAccess(caller: RosterCaller, institutionId: string): Promise<boolean> };
}

export type FeedVerdict = 'allowed' | 'other_institution' | 'bootstrap_closed';

const bootstrapClosed =
  'this institution has been issued its own roster secret; the bootstrap secret no longer reaches it';

/** The one rule: whether the caller may write into the institution, and if not, why. */
export async function pushVerdict(
  deps: FeedAccessDeps,
  caller: RosterCaller,
  institutionId: string,
): Promise<FeedVerdict> {
  if (await deps.rosterSecrets.mayAccess(caller, institutionId)) return 'allowed';
  return caller.kind === 'bootstrap' ? 'bootstrap_closed' : 'other_institution';
}

/** The run history's name for the caller's credential. */
export const credentialOf = (caller: RosterCaller) =>
  caller.kind === 'bootstrap' ? ('bootstrap_secret' as const) : ('institution_secret' as const);

/**
 * The cohort a roster push names, once the caller may push into its institution and neither is
 * archived; else throws.
 */
export async function cohortForPush(
  deps: FeedAccessDeps,
  caller: RosterCaller,
  cohortId: string,
): Promise<CohortOfInstitution> {
  const cohort = await deps.institutions.cohort(cohortId);
  const verdict = cohort ? await pushVerdict(deps, caller, cohort.institution_id) : 'other_institution';
  if (verdict === 'bootstrap_closed') throw new ApiError('unauthorized', { detail: bootstrapClosed });
  if (!cohort || verdict !== 'allowed') {
    throw new ApiError('cohort_not_found', {
      detail: 'cohort_id is not among the cohorts this secret may push to',
    });
  }
  refuseArchivedInstitution({ slug: cohort.institution_slug, archived_at: cohort.institution_archived_at });
  refuseArchivedCohort(cohort);
  return cohort;
}

/**
 * The institution an enrolments push names by slug, once the caller may push into it and it is
 * not archived; else throws.
 */
export async function institutionForPush(
  deps: FeedAccessDeps,
  caller: RosterCaller,
  slug: string,
): Promise<Institution> {
  const institution = slugPattern.test(slug) ? await deps.institutions.bySlug(slug) : undefined;
  if (!institution) {
    if (caller.kind === 'bootstrap') {
      throw new ApiError('institution_not_found', {
        field: 'institution',
        detail: `no institution with slug "${slug}"`,
      });
    }
    throw new ApiError('unauthorized', { detail: 'the bearer secret is not valid for this institution' });
  }
  const verdict = await pushVerdict(deps, caller, institution.id);
  if (verdict === 'bootstrap_closed') throw new ApiError('unauthorized', { detail: bootstrapClosed });
  if (verdict !== 'allowed') {
    throw new ApiError('unauthorized', { detail: 'the bearer secret is not valid for this institution' });
  }
  refuseArchivedInstitution(institution);
  return institution;
}
