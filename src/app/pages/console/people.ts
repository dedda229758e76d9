// People (admins): invite staff and admins, set roles and Manage integrations, end someone's
// sessions, remove someone; and the institution's identity-provider settings.
//
// Every page calls the people domain's functions with the request's context, as the admin API
// does: the same access (`admin`), the same rules (who may change whose grants is the domain's),
// the forms checked against the API's schemas; a refusal is shown next to the field it names.
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { grants } from '../../../domain/access/policy.ts';
import { confirmProvider, findProvider, putProvider } from '../../../domain/people/identity-providers.ts';
import {
  endPersonSessions,
  getPerson,
  invitePerson,
  listPeople,
  removePerson,
  updatePerson,
} from '../../../domain/people/people.ts';
import { InviteBody, PersonChangeBody, ProviderBody } from '../../../domain/people/schemas.ts';
import type { App } from '../../types.ts';
import { ctx, institutionOf, PageParams } from './context.ts';
import { confirmed, refusalOf, submitForm, text } from './forms.ts';
import {
  inviteValues,
  peopleView,
  personConfirmView,
  personFields,
  personValues,
  personView,
  providerFields,
  providerInput,
  providerValues,
} from './people-view.ts';

const PersonParams = Type.Object({ slug: Type.String(), id: Type.String({ format: 'uuid' }) });
const config = { access: 'admin' as const };
const listSchema = { hide: true, params: PageParams };
const schema = { hide: true, params: PersonParams };

type PageData = Record<string, unknown>;

const pageOf = (request: FastifyRequest) => `/console/${institutionOf(request).slug}/people`;

/** The people page: the list, the invitation form and the provider's settings. */
async function overview(request: FastifyRequest, extra: PageData = {}, status = 200) {
  const { db, config: settings } = request.deps;
  const institutionId = institutionOf(request).id;
  const [people, idp] = await Promise.all([listPeople(db, institutionId), findProvider(db, institutionId)]);
  const caller = ctx(request).caller;
  // The provider decides who signs in as whom: changing it needs Manage integrations.
  const mayChangeProvider =
    caller.kind === 'operator' || (caller.kind === 'person' && grants(caller, 'integrations'));
  return ctx(request).render(
    'console/people.eta',
    {
      ...peopleView(people, idp, settings.publicBaseUrl),
      mayChangeProvider,
      mayConfirmProvider: caller.kind === 'operator',
      ...extra,
    },
    status,
  );
}

/** One person's page. */
async function personPage(request: FastifyRequest, extra: PageData = {}, status = 200) {
  const { id } = request.params as { id: string };
  const person = await getPerson(request.deps.db, institutionOf(request).id, id);
  return ctx(request).render(
    'console/person.eta',
    { ...personView(person, pageOf(request)), ...extra },
    status,
  );
}

export function peopleRoutes(app: App): void {
  listRoutes(app);
  providerRoutes(app);
  personRoutes(app);
}

/** The list and the invitation. */
function listRoutes(app: App): void {
  app.get('/:slug/people', { config, schema: listSchema }, async (request) => overview(request));

  app.post(
    '/:slug/people',
    { config: { ...config, formFields: ['email', 'name', 'roles', 'permissions'] }, schema: listSchema },
    async (request, reply) => {
      const invite = inviteValues(request.body);
      return submitForm(reply, {
        schema: InviteBody,
        values: invite,
        fields: personFields,
        run: (value) =>
          invitePerson(
            request.deps,
            institutionOf(request).id,
            { ...value, permissions: value.permissions ?? [] },
            ctx(request).caller,
          ),
        redisplay: (errors, status) => overview(request, { invite, ...errors }, status),
        done: `${pageOf(request)}?done=person_invited`,
      });
    },
  );
}

/** The identity provider's settings, and the operator's confirmation of its issuer. */
function providerRoutes(app: App): void {
  const integrations = { access: 'integrations' as const };
  app.post(
    '/:slug/identity-provider',
    {
      config: { ...integrations, formFields: ['issuer', 'client_id', 'client_secret', 'email_domains'] },
      schema: listSchema,
    },
    async (request, reply) => {
      const provider = providerValues(request.body);
      const shown = (errors: { errors: Record<string, string>; formError?: string }) => ({
        provider,
        providerErrors: errors.errors,
        providerError: errors.formError,
      });
      return submitForm(reply, {
        schema: ProviderBody,
        values: providerInput(provider, text(request.body, 'client_secret')),
        fields: providerFields,
        run: (value) => putProvider(request.deps, institutionOf(request).id, value, ctx(request).caller),
        redisplay: (errors, status) => overview(request, shown(errors), status),
        done: `${pageOf(request)}?done=provider_saved`,
      });
    },
  );

  // The operator confirms an issuer set by an admin (docs/sign-in.md, "Changing the identity provider").
  app.post(
    '/:slug/identity-provider/confirmation',
    { config: { access: 'operator', formFields: ['confirmed'] }, schema: listSchema },
    async (request, reply) => {
      await confirmProvider(request.deps, institutionOf(request).id);
      return reply.redirect(`${pageOf(request)}?done=provider_confirmed`, 303);
    },
  );
}

/** One person: their page, a change, ending their sessions, removing them. */
function personRoutes(app: App): void {
  app.get('/:slug/people/:id', { config, schema }, async (request) => personPage(request));

  app.post(
    '/:slug/people/:id',
    { config: { ...config, formFields: ['name', 'roles', 'permissions'] }, schema },
    async (request, reply) => {
      const values = personValues(request.body);
      return submitForm(reply, {
        schema: PersonChangeBody,
        values,
        fields: personFields,
        run: (value) =>
          updatePerson(
            request.deps,
            institutionOf(request).id,
            request.params.id,
            value,
            ctx(request).caller,
          ),
        redisplay: (errors, status) => personPage(request, { values, ...errors }, status),
        done: `${pageOf(request)}/${request.params.id}?done=person_updated`,
      });
    },
  );

  for (const action of ['sessions', 'remove'] as const) {
    app.post(
      `/:slug/people/:id/${action}`,
      { config: { ...config, formFields: ['confirmed'] }, schema },
      async (request, reply) => {
        const c = ctx(request);
        const page = pageOf(request);
        const institutionId = institutionOf(request).id;
        const id = request.params.id;
        if (!confirmed(request.body)) {
          // Asking first changes nothing: no audit entry for it.
          request.unchanged = true;
          const person = await getPerson(request.deps.db, institutionId, id);
          return c.render('console/confirm.eta', personConfirmView(person, action, page));
        }
        try {
          if (action === 'remove') await removePerson(request.deps, institutionId, id, c.caller);
          else await endPersonSessions(request.deps, institutionId, id);
        } catch (error) {
          const refused = refusalOf(error, []);
          return personPage(request, refused, refused.status);
        }
        return reply.redirect(
          action === 'remove' ? `${page}?done=person_removed` : `${page}/${id}?done=sessions_ended`,
          303,
        );
      },
    );
  }
}
