// Campuses (staff and admins, as the API's listings): every campus, cursor-paged, and the names
// that match a campus because of an earlier merge. The platform operator also merges one campus
// into another here: pick both, confirm, then the domain's merge moves students and units and
// keeps the old name as an alias; its refusal (no such campus, a campus into itself) is shown
// next to the field it names. The form is offered only where the access policy allows the merge.
//
// The page calls the domain's listings and merge with the request's institution, as the admin
// API does; the merge form is checked with the API's own schema.
import type { FastifyRequest } from 'fastify';
import { campusAliases, mergeCampuses } from '../../../domain/campuses/merge.ts';
import { MergeBody } from '../../../domain/campuses/schemas.ts';
import { campusOrder, listCampuses } from '../../../domain/institutions/listings.ts';
import type { App } from '../../types.ts';
import { checkForm } from '../form-check.ts';
import { ctx, institutionOf, PageParams } from './context.ts';
import { campusesView, mergeConfirmation, mergeFields, mergeValues } from './data-campuses-view.ts';
import { checkErrors, confirmed, refusalOf } from './forms.ts';
import { allOrNone, CursorQuery, readListing } from './listing.ts';

export function dataCampusRoutes(app: App): void {
  const pageOf = (request: FastifyRequest) => `/console/${institutionOf(request).slug}/campuses`;

  /** The merge form's choices (the operator's only): every campus when they fit in one read. */
  const mergeChoices = (request: FastifyRequest) => {
    if (!ctx(request).may('operator')) return undefined;
    const institutionId = institutionOf(request).id;
    return allOrNone((page) => listCampuses(request.deps.db, institutionId, page));
  };

  const campuses = async (request: FastifyRequest, extra: Record<string, unknown> = {}, status = 200) => {
    const c = ctx(request);
    const institutionId = institutionOf(request).id;
    const cursor = (request.query as { cursor?: string } | undefined)?.cursor;
    const [listing, aliases, choices] = await Promise.all([
      readListing(campusOrder, { cursor, size: 50 }, (page) =>
        listCampuses(request.deps.db, institutionId, page),
      ),
      campusAliases(request.deps.db, institutionId),
      mergeChoices(request),
    ]);
    const view = campusesView(listing, aliases, { may: c.may('operator'), choices }, pageOf(request));
    return c.render(
      'console/data-campuses.eta',
      { ...view, ...extra },
      listing.problem && status === 200 ? 400 : status,
    );
  };

  app.get(
    '/:slug/campuses',
    { config: { access: 'read' }, schema: { hide: true, params: PageParams, querystring: CursorQuery } },
    async (request) => campuses(request),
  );

  app.post(
    '/:slug/campuses/merge',
    {
      config: { access: 'operator', formFields: ['from', 'into', 'confirmed'] },
      schema: { hide: true, params: PageParams },
    },
    async (request, reply) => {
      const c = ctx(request);
      const page = pageOf(request);
      const values = mergeValues(request.body);
      const checked = checkForm(MergeBody, { ...values }, mergeFields);
      if (!checked.ok) return campuses(request, { values, ...checkErrors(checked.errors) }, 400);
      if (!confirmed(request.body)) {
        // Asking first changes nothing: no audit entry for it.
        request.unchanged = true;
        return c.render('console/confirm.eta', mergeConfirmation(values, await mergeChoices(request), page));
      }
      try {
        await mergeCampuses(request.deps.db, institutionOf(request).id, {
          ...checked.value,
          actor: c.caller.actor,
        });
      } catch (error) {
        const refused = refusalOf(error, ['from', 'into']);
        return campuses(request, { values, ...refused }, refused.status);
      }
      return reply.redirect(`${page}?done=campuses_merged`, 303);
    },
  );
}
