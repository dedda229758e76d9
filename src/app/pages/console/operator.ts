// The operator's pages: every institution (create, list, archive and restore: docs/archiving.md)
// and a way into each one's console.
// `/console/` itself is the entry: a person goes to their institution, the operator sees the list.
// The pages call the institutions domain's functions, as the admin API does; the create form is
// checked against the API's schema and a refusal shown next to the field it names.
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { archiveInstitution, restoreInstitution } from '../../../domain/institutions/archiving.ts';
import {
  checkTimeZone,
  createInstitution,
  institutionById,
  institutionOrder,
  institutionOverview,
  listInstitutions,
} from '../../../domain/institutions/institutions.ts';
import {
  type ArchivedFilter,
  ArchivedQuery,
  NewInstitutionBody,
} from '../../../domain/institutions/schemas.ts';
import { rosterSecretsDueForRotation } from '../../../domain/secrets/roster-secrets.ts';
import type { App } from '../../types.ts';
import { checkForm, withFieldChecks } from '../form-check.ts';
import { ctx, institutionOf } from './context.ts';
import { checkErrors, confirmed, refusalOf } from './forms.ts';
import { CursorQuery, readListing } from './listing.ts';
import {
  archiveConfirmation,
  institutionFields,
  institutionInput,
  institutionsView,
  institutionValues,
} from './operator-view.ts';

const ListQuery = Type.Intersect([CursorQuery, ArchivedQuery]);

export function operatorRoutes(app: App): void {
  const listInstitutionsPage = async (
    request: FastifyRequest,
    extra: Record<string, unknown>,
    status = 200,
  ) => {
    const { db } = request.deps;
    const query = request.query as { cursor?: string; archived?: ArchivedFilter } | undefined;
    const archived = query?.archived ?? 'false';
    const [institutions, due] = await Promise.all([
      readListing(institutionOrder, { cursor: query?.cursor, size: 100 }, (page) =>
        listInstitutions(db, { ...page, archived }),
      ),
      rosterSecretsDueForRotation(db),
    ]);
    // Each institution's students, last push and what is failing: one statement for the page.
    const overview = await institutionOverview(
      db,
      institutions.items.map((i) => i.id),
    );
    return ctx(request).render(
      'console/institutions.eta',
      { ...institutionsView(institutions, archived, overview), rotationDue: due, ...extra },
      status,
    );
  };

  app.get(
    '/',
    { config: { access: 'self' }, schema: { hide: true, querystring: ListQuery } },
    async (request, reply) => {
      // The console's front door: a student belongs on the student pages, a person in their own
      // institution's console, the operator here.
      if (request.caller?.kind === 'student') return reply.redirect('/app/', 303);
      const { caller } = ctx(request);
      if (caller.kind === 'person') {
        const own = await institutionById(request.deps.db, caller.institutionId);
        if (!own) return reply.redirect('/auth/sign-in', 303);
        return reply.redirect(`/console/${own.slug}/`, 303);
      }
      return listInstitutionsPage(request, {});
    },
  );

  app.post(
    '/',
    { config: { access: 'operator', formFields: ['name', 'slug', 'time_zone'] }, schema: { hide: true } },
    async (request, reply) => {
      const values = institutionValues(request.body);
      const checked = withFieldChecks(
        checkForm(NewInstitutionBody, institutionInput(values), institutionFields),
        { time_zone: () => checkTimeZone(values.time_zone || 'UTC') },
        institutionFields,
      );
      if (!checked.ok) return listInstitutionsPage(request, { values, ...checkErrors(checked.errors) }, 400);
      let created: Awaited<ReturnType<typeof createInstitution>>;
      try {
        created = await createInstitution(request.deps.db, checked.value);
      } catch (error) {
        const refused = refusalOf(error, Object.keys(institutionFields));
        return listInstitutionsPage(request, { values, ...refused }, refused.status);
      }
      return reply.redirect(`/console/${created.slug}/?done=institution_created`, 303);
    },
  );

  // Archiving asks first, naming what will stop; restoring does not (it only turns things back on).
  // Both are the operator's, and the only writes an archived institution takes.
  const archiving = {
    config: { access: 'operator' as const, whileArchived: true, formFields: ['confirmed'] },
    schema: { hide: true },
  };
  app.post('/:slug/archive', archiving, async (request, reply) => {
    const institution = institutionOf(request);
    if (!confirmed(request.body)) {
      // Asking first changes nothing: no audit entry for it.
      request.unchanged = true;
      return ctx(request).render('console/confirm.eta', archiveConfirmation(institution));
    }
    await archiveInstitution(request.deps.db, institution.id);
    return reply.redirect('/console/?archived=true&done=institution_archived', 303);
  });

  app.post('/:slug/restore', archiving, async (request, reply) => {
    await restoreInstitution(request.deps.db, institutionOf(request).id);
    return reply.redirect('/console/?done=institution_restored', 303);
  });
}
