// What the roster feeds' access checks (src/domain/roster/feed-access.ts) read, built from the
// institutions' functions over the request's database: a thin holder kept while that module
// still takes an object of lookups.
import type { Db } from '../../../db/db.ts';
import { cohortById } from '../../../domain/institutions/institutions.ts';
import { selectInstitutionBySlug } from '../../../domain/institutions/queries.ts';
import type { FeedAccessDeps } from '../../../domain/roster/feed-access.ts';

export function feedAccess(db: Db, rosterSecrets: FeedAccessDeps['rosterSecrets']): FeedAccessDeps {
  return {
    institutions: {
      cohort: (cohortId) => cohortById(db, cohortId),
      bySlug: (slug) => selectInstitutionBySlug(db, slug),
    },
    rosterSecrets,
  };
}
