// Cohorts (admins and the operator): each cohort with its clock and start date, creating one, and
// a cohort's page where its name, clock and start date are set. The student pages count a
// cohort-clock student's six weeks from the cohort's start date (docs/student-app.md), so changing
// it moves every student of the cohort at once; the institution's time zone, set here too, decides
// which days those are. A cohort made by mistake is archived here (and restored): pushes naming it
// are refused, its students stay (docs/archiving.md).
//
// Every page calls the institutions domain's functions with the request's institution, as the
// admin API does: the same rules, the forms checked against the API's schemas, a refusal shown
// next to the field it names.
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { setCohortArchive } from '../../../domain/institutions/archiving.ts';
import {
  checkStartDate,
  checkTimeZone,
  cohortOrder,
  createCohort,
  getCohort,
  listCohorts,
  updateCohort,
  updateInstitution,
} from '../../../domain/institutions/institutions.ts';
import {
  type ArchivedFilter,
  ArchivedQuery,
  CohortChangeBody,
  InstitutionChangeBody,
  NewCohortBody,
} from '../../../domain/institutions/schemas.ts';
import type { App } from '../../types.ts';
import { checkForm, withFieldChecks } from '../form-check.ts';
import {
  cohortArchiveConfirmation,
  cohortFields,
  cohortInput,
  cohortsView,
  cohortValues,
  cohortView,
  timeZoneFields,
} from './cohorts-view.ts';
import { ctx, ItemPageParams, institutionOf, PageParams } from './context.ts';
import { checkErrors, confirmed, refusalOf, text } from './forms.ts';
import { CursorQuery, readListing } from './listing.ts';

const listSchema = {
  hide: true,
  params: PageParams,
  querystring: Type.Intersect([CursorQuery, ArchivedQuery]),
};
const schema = { hide: true, params: ItemPageParams };
const config = { access: 'admin' as const };
const FIELDS = Object.keys(cohortFields);

type PageData = Record<string, unknown>;

export function cohortRoutes(app: App): void {
  cohortListRoutes(app);
  cohortPageRoutes(app);
}

const pageOf = (request: FastifyRequest, id?: string) => {
  const page = `/console/${institutionOf(request).slug}/cohorts`;
  return id ? `${page}/${id}` : page;
};

/** The cohorts listing, with the new-cohort and time-zone forms (`extra`: a form shown again). */
async function cohorts(request: FastifyRequest, extra: PageData = {}, status = 200) {
  const institution = institutionOf(request);
  const query = request.query as { cursor?: string; archived?: ArchivedFilter } | undefined;
  const archived = query?.archived ?? 'false';
  const listing = await readListing(cohortOrder, { cursor: query?.cursor }, (page) =>
    listCohorts(request.deps.db, institution.id, { ...page, archived }),
  );
  return ctx(request).render(
    'console/cohorts.eta',
    { ...cohortsView(listing, institution.time_zone, archived), ...extra },
    status,
  );
}

/** A cohort's page (`extra`: its form shown again). */
async function cohort(request: FastifyRequest, id: string, extra: PageData = {}, status = 200) {
  const found = await getCohort(request.deps.db, institutionOf(request).id, id);
  return ctx(request).render(
    'console/cohort.eta',
    { ...cohortView(found, request.deps.config.publicBaseUrl), ...extra },
    status,
  );
}

/** The listing, a new cohort, and the institution's time zone. */
function cohortListRoutes(app: App): void {
  app.get('/:slug/cohorts', { config, schema: listSchema }, async (request) => cohorts(request));

  app.post(
    '/:slug/cohorts',
    {
      config: { ...config, formFields: ['name', 'start_date', 'clock'] },
      schema: { hide: true, params: PageParams },
    },
    async (request, reply) => {
      const values = cohortValues(request.body);
      const checked = withFieldChecks(
        checkForm(NewCohortBody, cohortInput(values), cohortFields),
        { start_date: () => checkStartDate(values.start_date || null) },
        cohortFields,
      );
      if (!checked.ok) return cohorts(request, { values, ...checkErrors(checked.errors) }, 400);
      let created: Awaited<ReturnType<typeof createCohort>>;
      try {
        created = await createCohort(request.deps.db, institutionOf(request).id, {
          name: checked.value.name,
          clock: checked.value.clock ?? 'cohort',
          startDate: checked.value.start_date,
        });
      } catch (error) {
        const refused = refusalOf(error, FIELDS);
        return cohorts(request, { values, ...refused }, refused.status);
      }
      return reply.redirect(`${pageOf(request, created.id)}?done=cohort_created`, 303);
    },
  );

  // The institution's time zone sits with the cohorts: it decides where the six weeks start and
  // end for every student (docs/student-app.md).
  app.post(
    '/:slug/time-zone',
    { config: { ...config, formFields: ['time_zone'] }, schema: { hide: true, params: PageParams } },
    async (request, reply) => {
      const value = text(request.body, 'time_zone');
      const shown = (errors: { errors: Record<string, string>; formError?: string }) => ({
        timeZone: { value, error: errors.errors.time_zone ?? errors.formError },
      });
      // Answered as the operator's new-institution form answers it: the same check, the same words.
      const checked = withFieldChecks(
        checkForm(InstitutionChangeBody, { time_zone: value }, timeZoneFields),
        { time_zone: () => checkTimeZone(value) },
        timeZoneFields,
      );
      if (!checked.ok) return cohorts(request, shown(checkErrors(checked.errors)), 400);
      try {
        await updateInstitution(
          request.deps.db,
          institutionOf(request).id,
          checked.value,
          ctx(request).caller,
        );
      } catch (error) {
        const refused = refusalOf(error, ['time_zone']);
        return cohorts(request, shown(refused), refused.status);
      }
      return reply.redirect(`${pageOf(request)}?done=time_zone_saved`, 303);
    },
  );
}

/** A cohort's page: its settings, archiving and restoring. */
function cohortPageRoutes(app: App): void {
  app.get('/:slug/cohorts/:id', { config, schema }, async (request) => cohort(request, request.params.id));

  app.post(
    '/:slug/cohorts/:id',
    { config: { ...config, formFields: ['name', 'start_date', 'clock'] }, schema },
    async (request, reply) => {
      const { id } = request.params;
      const values = cohortValues(request.body);
      const checked = withFieldChecks(
        checkForm(CohortChangeBody, cohortInput(values), cohortFields),
        { start_date: () => checkStartDate(values.start_date || null) },
        cohortFields,
      );
      if (!checked.ok) return cohort(request, id, { values, ...checkErrors(checked.errors) }, 400);
      try {
        await updateCohort(request.deps.db, institutionOf(request).id, id, {
          name: checked.value.name,
          clock: checked.value.clock,
          startDate: checked.value.start_date,
        });
      } catch (error) {
        const refused = refusalOf(error, FIELDS);
        return cohort(request, id, { values, ...refused }, refused.status);
      }
      return reply.redirect(`${pageOf(request, id)}?done=cohort_updated`, 303);
    },
  );

  // Archiving a cohort asks first, naming what stops; restoring does not (docs/archiving.md).
  for (const action of ['archive', 'restore'] as const) {
    app.post(
      `/:slug/cohorts/:id/${action}`,
      { config: { ...config, formFields: ['confirmed'] }, schema },
      async (request, reply) => {
        const { id } = request.params;
        const institutionId = institutionOf(request).id;
        if (action === 'archive' && !confirmed(request.body)) {
          // Asking first changes nothing: no audit entry for it.
          request.unchanged = true;
          const found = await getCohort(request.deps.db, institutionId, id);
          return ctx(request).render(
            'console/confirm.eta',
            cohortArchiveConfirmation(found, pageOf(request, id)),
          );
        }
        await setCohortArchive(request.deps.db, institutionId, id, action === 'archive');
        return reply.redirect(`${pageOf(request, id)}?done=cohort_${action}d`, 303);
      },
    );
  }
}
