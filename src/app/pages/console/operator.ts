// The operator's pages: every institution (create, list) and a way into each one's console.
// `/console/` itself is the entry: a person goes to their institution, the operator sees the list.
// The pages call the institutions domain's functions, as the admin API does; the create form is
// checked against the API's schema and a refusal shown next to the field it names.
import type { FastifyRequest } from 'fastify';
import {
  checkTimeZone,
  createInstitution,
  institutionById,
  institutionOrder,
  listInstitutions,
} from '../../../domain/institutions/institutions.ts';
import { NewInstitutionBody } from '../../../domain/institutions/schemas.ts';
import { rosterSecretsDueForRotation } from '../../../domain/secrets/roster-secrets.ts';
import type { Services } from '../../../services.ts';
import type { App } from '../../types.ts';
import { checkForm, withFieldChecks } from '../form-check.ts';
import { ctx } from './context.ts';
import { checkErrors, refusalOf } from './forms.ts';
import { CursorQuery, readListing } from './listing.ts';
import { institutionFields, institutionInput, institutionsView, institutionValues } from './operator-view.ts';

export function operatorRoutes(app: App, { db }: Services): void {
  const listInstitutionsPage = async (
    request: FastifyRequest,
    extra: Record<string, unknown>,
    status = 200,
  ) => {
    const cursor = (request.query as { cursor?: string } | undefined)?.cursor;
    const [institutions, due] = await Promise.all([
      readListing(institutionOrder, { cursor, size: 100 }, (page) => listInstitutions(db, page)),
      rosterSecretsDueForRotation(db),
    ]);
    return ctx(request).render(
      'console/institutions.eta',
      { ...institutionsView(institutions), rotationDue: due, ...extra },
      status,
    );
  };

  app.get(
    '/',
    { config: { access: 'self' }, schema: { hide: true, querystring: CursorQuery } },
    async (request, reply) => {
      // The console's front door: a student belongs on the student pages, a person in their own
      // institution's console, the operator here.
      if (request.caller?.kind === 'student') return reply.redirect('/app/', 303);
      const { caller } = ctx(request);
      if (caller.kind === 'person') {
        const own = await institutionById(db, caller.institutionId);
        if (!own) return reply.redirect('/auth/sign-in', 303);
        return reply.redirect(`/console/${own.slug}/`, 303);
      }
      return listInstitutionsPage(request, {});
    },
  );

  app.post('/', { config: { access: 'operator' }, schema: { hide: true } }, async (request, reply) => {
    const values = institutionValues(request.body);
    const checked = withFieldChecks(
      checkForm(NewInstitutionBody, institutionInput(values), institutionFields),
      { time_zone: () => checkTimeZone(values.time_zone || 'UTC') },
      institutionFields,
    );
    if (!checked.ok) return listInstitutionsPage(request, { values, ...checkErrors(checked.errors) }, 400);
    let created: Awaited<ReturnType<typeof createInstitution>>;
    try {
      created = await createInstitution(db, checked.value);
    } catch (error) {
      const refused = refusalOf(error, Object.keys(institutionFields));
      return listInstitutionsPage(request, { values, ...refused }, refused.status);
    }
    return reply.redirect(`/console/${created.slug}/?done=institution_created`, 303);
  });
}
