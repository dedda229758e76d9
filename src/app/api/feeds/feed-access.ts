// What the roster feeds' access checks (src/domain/roster/feed-access.ts) read, built from the
// institutions' and roster secrets' functions over the request's database: a thin holder kept while that module
// still takes an object of lookups.
import type { Db } from '../../../db/db.ts';
import { cohortById } from '../../../domain/institutions/institutions.ts';
import { selectInstitutionBySlug } from '../../../domain/institutions/queries.ts';
import type { FeedAccessDeps } from '../../../domain/roster/feed-access.ts';
import { rosterMayAccess } from '../../../domain/secrets/roster-secrets.ts';

export function feedAccess(db: Db): FeedAccessDeps {
  return {
    institutions: {
      cohort: (cohortId) => cohortById(db, cohortId),
      bySlug: (slug) => selectInstitutionBySlug(db, slug),
    },
    rosterSecrets: { mayAccess: (caller, institutionId) => rosterMayAccess(db, caller, institutionId) },
  };
}
