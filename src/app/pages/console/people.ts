// People (admins): invite staff and admins, set roles and Manage integrations, end someone's
// sessions, remove someone; and the institution's identity-provider settings.
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Services } from '../../../services.ts';
import type { App } from '../../types.ts';
import { ctx, institutionOf } from './context.ts';
import { confirmed, formErrors, list, text, when } from './forms.ts';

const Params = Type.Object({ slug: Type.String() });
const PersonParams = Type.Object({ slug: Type.String(), id: Type.String({ format: 'uuid' }) });

interface Person {
  id: string;
  email: string;
  name: string;
  roles: string[];
  permissions: string[];
  linked: boolean;
  last_sign_in_at: string | null;
}

export function peopleRoutes(app: App, _services: Services): void {
  const paths = (request: FastifyRequest) => {
    const slug = institutionOf(request).slug;
    return { api: `/admin/v1/institutions/${slug}`, page: `/console/${slug}/people` };
  };

  const overview = async (request: FastifyRequest, extra: Record<string, unknown> = {}, status = 200) => {
    const c = ctx(request);
    const { api } = paths(request);
    const [people, provider] = await Promise.all([
      c.api.get<{ items: Person[] }>(`${api}/people`),
      c.api.call<Record<string, unknown>>('GET', `${api}/identity-provider`),
    ]);
    const idp = provider.ok ? provider.body : undefined;
    return c.render(
      'console/people.eta',
      {
        title: 'People',
        people: people.items,
        idp,
        invite: { roles: ['staff'], permissions: [] },
        provider: {
          issuer: idp?.issuer ?? '',
          client_id: idp?.client_id ?? '',
          email_domains: ((idp?.email_domains as string[] | undefined) ?? []).join(', '),
        },
        errors: {},
        providerErrors: {},
        when,
        ...extra,
      },
      status,
    );
  };

  app.get(
    '/:slug/people',
    { config: { access: 'admin' }, schema: { hide: true, params: Params } },
    async (request) => overview(request),
  );

  app.post(
    '/:slug/people',
    { config: { access: 'admin' }, schema: { hide: true, params: Params } },
    async (request, reply) => {
      const c = ctx(request);
      const { api, page } = paths(request);
      const invite = {
        email: text(request.body, 'email'),
        name: text(request.body, 'name'),
        roles: list(request.body, 'roles'),
        permissions: list(request.body, 'permissions'),
      };
      const answer = await c.api.call('POST', `${api}/people`, invite);
      if (answer.ok) return reply.redirect(`${page}?done=person_invited`, 303);
      return overview(
        request,
        { invite, ...formErrors(answer.problem, ['email', 'name', 'roles', 'permissions']) },
        answer.status,
      );
    },
  );

  app.post(
    '/:slug/identity-provider',
    { config: { access: 'admin' }, schema: { hide: true, params: Params } },
    async (request, reply) => {
      const c = ctx(request);
      const { api, page } = paths(request);
      const secret = text(request.body, 'client_secret');
      const provider = {
        issuer: text(request.body, 'issuer'),
        client_id: text(request.body, 'client_id'),
        email_domains: text(request.body, 'email_domains'),
      };
      const answer = await c.api.call('PUT', `${api}/identity-provider`, {
        issuer: provider.issuer,
        client_id: provider.client_id,
        ...(secret ? { client_secret: secret } : {}),
        email_domains: provider.email_domains
          .split(/[\s,]+/)
          .map((d) => d.trim())
          .filter(Boolean),
      });
      if (answer.ok) return reply.redirect(`${page}?done=provider_saved`, 303);
      const { errors, formError } = formErrors(answer.problem, [
        'issuer',
        'client_id',
        'client_secret',
        'email_domains',
      ]);
      return overview(request, { provider, providerErrors: errors, providerError: formError }, answer.status);
    },
  );

  const personPage = async (request: FastifyRequest, extra: Record<string, unknown> = {}, status = 200) => {
    const c = ctx(request);
    const { api, page } = paths(request);
    const { id } = request.params as { id: string };
    const person = await c.api.get<Person>(`${api}/people/${id}`);
    return c.render(
      'console/person.eta',
      { title: person.name, person, values: person, errors: {}, back: page, when, ...extra },
      status,
    );
  };

  app.get(
    '/:slug/people/:id',
    { config: { access: 'admin' }, schema: { hide: true, params: PersonParams } },
    async (request) => personPage(request),
  );

  app.post(
    '/:slug/people/:id',
    { config: { access: 'admin' }, schema: { hide: true, params: PersonParams } },
    async (request, reply) => {
      const c = ctx(request);
      const { api, page } = paths(request);
      const values = {
        name: text(request.body, 'name'),
        roles: list(request.body, 'roles'),
        permissions: list(request.body, 'permissions'),
      };
      const answer = await c.api.call('PATCH', `${api}/people/${request.params.id}`, values);
      if (answer.ok) return reply.redirect(`${page}/${request.params.id}?done=person_updated`, 303);
      return personPage(
        request,
        { values, ...formErrors(answer.problem, ['name', 'roles', 'permissions']) },
        answer.status,
      );
    },
  );

  for (const action of ['sessions', 'remove'] as const) {
    app.post(
      `/:slug/people/:id/${action}`,
      { config: { access: 'admin' }, schema: { hide: true, params: PersonParams } },
      async (request, reply) => {
        const c = ctx(request);
        const { api, page } = paths(request);
        const id = request.params.id;
        if (!confirmed(request.body)) {
          const person = await c.api.get<Person>(`${api}/people/${id}`);
          return c.render('console/confirm.eta', {
            title: action === 'remove' ? `Remove ${person.name}?` : `End ${person.name}’s sessions?`,
            message:
              action === 'remove'
                ? `${person.name} (${person.email}) loses access at once: their sessions end and their sign-in link goes. Invite them again to undo.`
                : `${person.name} is signed out everywhere and must sign in again.`,
            action: `${page}/${id}/${action}`,
            button: action === 'remove' ? 'Remove this person' : 'End their sessions',
            back: `${page}/${id}`,
          });
        }
        const answer = await c.api.call(
          'DELETE',
          `${api}/people/${id}${action === 'sessions' ? '/sessions' : ''}`,
        );
        if (!answer.ok) return personPage(request, formErrors(answer.problem, []), answer.status);
        return reply.redirect(
          action === 'remove' ? `${page}?done=person_removed` : `${page}/${id}?done=sessions_ended`,
          303,
        );
      },
    );
  }
}
