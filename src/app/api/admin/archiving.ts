// Admin API: archiving and restoring an institution (the operator) or a cohort (its admins and
// the operator), made by mistake; nothing is deleted (docs/archiving.md). State changes are
// actions on the resource, as a full sync's confirm and discard are: POST …/archive, …/restore,
// each answering the resource as it now is. Both are idempotent: archiving an archived one keeps
// its first archived_at. The request context audits each like every admin write.

import {
  archiveInstitution,
  restoreInstitution,
  setCohortArchive,
} from '../../../domain/institutions/archiving.ts';
import { Cohort, Institution } from '../../../domain/institutions/schemas.ts';
import { institutionOf } from '../../context/request-context.ts';
import type { App } from '../../types.ts';
import { adminRoute, institutionRoute } from '../route-helpers.ts';
import { errorResponses } from '../schemas.ts';
import { CohortParams } from './cohorts.ts';

const institutionActions = {
  archive: {
    summary: 'Archive an institution made by mistake (operator only)',
    description:
      'Nothing is deleted. While archived, every push into it (roster, enrolments, help-sync, `ssp push`) and ' +
      'every change through this API or the console is refused with 409 `institution_archived`; its calendar ' +
      'feeds, OneRoster pulls, webhook deliveries and notification emails stop; its admins and staff can still ' +
      'sign in and read; its students are told the service is not available. Idempotent: archiving an archived ' +
      'institution changes nothing and answers it as it is.',
  },
  restore: {
    summary: 'Restore an archived institution (operator only)',
    description:
      'Pushes, changes and its background work resume (work that fell due meanwhile runs on the next round). ' +
      'Idempotent: restoring an active institution changes nothing.',
  },
} as const;

const cohortActions = {
  archive: {
    summary: 'Archive a cohort made by mistake',
    description:
      'Admins and the operator. Nothing is deleted: its students stay and are listed as before. While archived, ' +
      'a roster push naming it (and `ssp push roster --cohort`, a OneRoster push or a OneRoster source pulling ' +
      'into it) is refused with 409 `cohort_archived`; cohort listings leave it out unless asked. Idempotent. ' +
      "Another institution's cohort is 404 cohort_not_found, as an unknown id is.",
  },
  restore: {
    summary: 'Restore an archived cohort',
    description: 'Admins and the operator. Pushes naming it are accepted again. Idempotent.',
  },
} as const;

const institutionAction = { archive: archiveInstitution, restore: restoreInstitution };

export function adminArchiveRoutes(app: App): void {
  const tags = ['admin'];

  for (const action of ['archive', 'restore'] as const) {
    app.post(
      `/admin/v1/institutions/:slug/${action}`,
      // The one write an archived institution takes: its own archiving and restoring.
      institutionRoute(
        'operator',
        tags,
        { ...institutionActions[action], response: { 200: Institution, ...errorResponses(401, 403, 404) } },
        { whileArchived: true },
      ),
      async (request) => institutionAction[action](request.deps.db, institutionOf(request).id),
    );

    app.post(
      `/admin/v1/institutions/:slug/cohorts/:id/${action}`,
      adminRoute('admin', tags, {
        ...cohortActions[action],
        params: CohortParams,
        response: { 200: Cohort, ...errorResponses(400, 401, 403, 404, 409) },
      }),
      async (request) =>
        setCohortArchive(request.deps.db, institutionOf(request).id, request.params.id, action === 'archive'),
    );
  }
}
