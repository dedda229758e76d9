// Cohorts (admins and the operator): each cohort with its clock and start date, creating one, and
// a cohort's page where its name, clock and start date are set. The student pages count a
// cohort-clock student's six weeks from the cohort's start date (docs/student-app.md), so changing
// it moves every student of the cohort at once; the institution's time zone, set here too, decides
// which days those are. Every read and write is the admin API's.
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { authorize } from '../../../domain/access/policy.ts';
import type { Services } from '../../../services.ts';
import type { App } from '../../types.ts';
import { pageId } from './api.ts';
import { ctx, institutionOf } from './context.ts';
import { formErrors, text, timeZoneChoices, when } from './forms.ts';
import { CursorQuery, listPage } from './listing.ts';

const Params = Type.Object({ slug: Type.String() });
const CohortParams = Type.Object({ slug: Type.String(), id: Type.String() });
const listSchema = {
  hide: true,
  params: Params,
  querystring: CursorQuery,
};
const schema = { hide: true, params: CohortParams };

interface Cohort {
  id: string;
  name: string;
  clock: 'cohort' | 'individual';
  start_date: string | null;
  created_at: string;
}

const FIELDS = ['name', 'clock', 'start_date'];

/** The posted form as typed, and the API's body: an empty start date clears it. */
function cohortForm(body: unknown) {
  const values = {
    name: text(body, 'name'),
    clock: text(body, 'clock'),
    start_date: text(body, 'start_date'),
  };
  return {
    values,
    body: {
      name: values.name,
      ...(values.clock ? { clock: values.clock } : {}),
      start_date: values.start_date || null,
    },
  };
}

export function cohortRoutes(app: App, _services: Services): void {
  const paths = (request: FastifyRequest, id?: string) => {
    const slug = institutionOf(request).slug;
    const api = `/admin/v1/institutions/${slug}/cohorts`;
    const page = `/console/${slug}/cohorts`;
    return id ? { api: `${api}/${id}`, page: `${page}/${id}` } : { api, page };
  };

  /**
   * The API lets staff read cohorts (a listing of their institution), but these pages are for
   * setting them up: the page asks the access policy itself so staff get the 403 page.
   */
  const adminsOnly = (request: FastifyRequest) =>
    authorize(ctx(request).caller, 'admin', institutionOf(request));

  const cohorts = async (request: FastifyRequest, extra: Record<string, unknown> = {}, status = 200) => {
    const c = ctx(request);
    const cursor = (request.query as { cursor?: string }).cursor;
    const listing = await listPage<Cohort>(c.api, paths(request).api, {}, { cursor });
    return c.render(
      'console/cohorts.eta',
      {
        title: 'Cohorts',
        listing,
        values: { name: '', clock: 'cohort', start_date: '' },
        errors: {},
        timeZone: { value: institutionOf(request).time_zone },
        zones: timeZoneChoices,
        when,
        ...extra,
      },
      status,
    );
  };

  const cohort = async (
    request: FastifyRequest,
    id: string,
    extra: Record<string, unknown> = {},
    status = 200,
  ) => {
    const c = ctx(request);
    pageId(id, { error: 'cohort_not_found', detail: 'no such cohort' });
    const found = await c.api.get<Cohort>(paths(request, id).api);
    return c.render(
      'console/cohort.eta',
      {
        // By its name alone: names are often "Cohort A" already.
        title: found.name,
        cohort: found,
        values: { name: found.name, clock: found.clock, start_date: found.start_date ?? '' },
        errors: {},
        when,
        ...extra,
      },
      status,
    );
  };

  app.get('/:slug/cohorts', { config: { access: 'admin' }, schema: listSchema }, async (request) => {
    adminsOnly(request);
    return cohorts(request);
  });

  app.post(
    '/:slug/cohorts',
    { config: { access: 'admin' }, schema: { hide: true, params: Params } },
    async (request, reply) => {
      adminsOnly(request);
      const { values, body } = cohortForm(request.body);
      const answer = await ctx(request).api.call<Cohort>('POST', paths(request).api, body);
      if (!answer.ok)
        return cohorts(request, { values, ...formErrors(answer.problem, FIELDS) }, answer.status);
      return reply.redirect(`${paths(request, answer.body.id).page}?done=cohort_created`, 303);
    },
  );

  // The institution's time zone sits with the cohorts: it decides where the six weeks start and
  // end for every student (docs/student-app.md).
  app.post(
    '/:slug/time-zone',
    { config: { access: 'admin' }, schema: { hide: true, params: Params } },
    async (request, reply) => {
      adminsOnly(request);
      const { slug } = institutionOf(request);
      const value = text(request.body, 'time_zone');
      const answer = await ctx(request).api.call('PATCH', `/admin/v1/institutions/${slug}`, {
        time_zone: value,
      });
      if (!answer.ok) {
        const { errors, formError } = formErrors(answer.problem, ['time_zone']);
        return cohorts(request, { timeZone: { value, error: errors.time_zone ?? formError } }, answer.status);
      }
      return reply.redirect(`${paths(request).page}?done=time_zone_saved`, 303);
    },
  );

  app.get('/:slug/cohorts/:id', { config: { access: 'admin' }, schema }, async (request) => {
    adminsOnly(request);
    return cohort(request, request.params.id);
  });

  app.post('/:slug/cohorts/:id', { config: { access: 'admin' }, schema }, async (request, reply) => {
    adminsOnly(request);
    const { api, page } = paths(request, request.params.id);
    const { values, body } = cohortForm(request.body);
    const answer = await ctx(request).api.call('PATCH', api, body);
    if (!answer.ok)
      return cohort(
        request,
        request.params.id,
        { values, ...formErrors(answer.problem, FIELDS) },
        answer.status,
      );
    return reply.redirect(`${page}?done=cohort_updated`, 303);
  });
}
