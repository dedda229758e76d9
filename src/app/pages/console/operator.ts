// The operator's pages: every institution (create, list) and a way into each one's console.
// `/console/` itself is the entry: a person goes to their institution, the operator sees the list.

import type { Services } from '../../../services.ts';
import type { App } from '../../types.ts';
import { ctx } from './context.ts';
import { formErrors, text, timeZoneChoices, when } from './forms.ts';
import { CursorQuery, listPage } from './listing.ts';

export function operatorRoutes(app: App, services: Services): void {
  const listInstitutions = async (
    request: Parameters<typeof ctx>[0],
    extra: Record<string, unknown>,
    status = 200,
  ) => {
    const c = ctx(request);
    const cursor = (request.query as { cursor?: string }).cursor;
    const institutions = await listPage(c.api, '/admin/v1/institutions', {}, { cursor, size: 100 });
    return c.render(
      'console/institutions.eta',
      { title: 'Institutions', institutions, zones: timeZoneChoices, when, ...extra },
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
        const { rows } = await services.db.query<{ slug: string }>(
          'SELECT slug FROM institutions WHERE id = $1',
          [caller.institutionId],
        );
        if (!rows[0]) return reply.redirect('/auth/sign-in', 303);
        return reply.redirect(`/console/${rows[0].slug}/`, 303);
      }
      return listInstitutions(request, { values: { time_zone: 'UTC' }, errors: {} });
    },
  );

  app.post('/', { config: { access: 'operator' }, schema: { hide: true } }, async (request, reply) => {
    const c = ctx(request);
    const values = {
      slug: text(request.body, 'slug'),
      name: text(request.body, 'name'),
      time_zone: text(request.body, 'time_zone'),
    };
    const answer = await c.api.call<{ slug: string }>('POST', '/admin/v1/institutions', {
      slug: values.slug,
      name: values.name,
      ...(values.time_zone ? { time_zone: values.time_zone } : {}),
    });
    if (answer.ok) return reply.redirect(`/console/${answer.body.slug}/?done=institution_created`, 303);
    return listInstitutions(
      request,
      { values, ...formErrors(answer.problem, ['slug', 'name', 'time_zone']) },
      answer.status,
    );
  });
}
