// Secrets: the roster feed secret (admins: issue, shown once; revoke; rotation date) and the
// help-sync secret (Manage integrations: issue, rotate, revoke). Replacing or revoking a working
// secret asks for confirmation first: the form posts once without `confirmed`, gets the
// confirmation page, and posts again with it.
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Services } from '../../../services.ts';
import type { App } from '../../types.ts';
import { ctx, institutionOf } from './context.ts';
import { confirmed, formErrors, when } from './forms.ts';

const Params = Type.Object({ slug: Type.String() });
const schema = { hide: true, params: Params };

interface Status {
  state: string;
  issued_at?: string;
  rotate_by?: string;
  revoked_at?: string;
}

export function secretRoutes(app: App, _services: Services): void {
  const paths = (request: FastifyRequest) => {
    const slug = institutionOf(request).slug;
    return { api: `/admin/v1/institutions/${slug}`, page: `/console/${slug}/secrets` };
  };

  const overview = async (request: FastifyRequest, extra: Record<string, unknown> = {}, status = 200) => {
    const c = ctx(request);
    const { api } = paths(request);
    const [roster, sync] = await Promise.all([
      c.api.get<Status>(`${api}/roster-secret`),
      c.api.tryGet<Status>(`${api}/help-sync-secret`),
    ]);
    return c.render('console/secrets.eta', { title: 'Secrets', roster, sync, when, ...extra }, status);
  };

  app.get('/:slug/secrets', { config: { access: 'admin' }, schema }, async (request) => overview(request));

  const shown = (request: FastifyRequest, which: string, secret: string) =>
    ctx(request).render('console/secret-shown.eta', {
      title: `New ${which}`,
      which,
      secret,
      back: paths(request).page,
    });

  const confirm = (request: FastifyRequest, action: string, title: string, message: string, button: string) =>
    ctx(request).render('console/confirm.eta', { title, message, action, button, back: paths(request).page });

  app.post('/:slug/secrets/roster', { config: { access: 'admin' }, schema }, async (request) => {
    const c = ctx(request);
    const { api, page } = paths(request);
    const current = await c.api.get<Status>(`${api}/roster-secret`);
    if (current.state === 'active' && !confirmed(request.body))
      return confirm(
        request,
        `${page}/roster`,
        'Replace the roster secret?',
        'Issuing a new roster secret revokes the current one at once: the SIS stops being able to push until it is given the new secret.',
        'Issue a new secret and revoke the current one',
      );
    const answer = await c.api.call<{ secret: string }>('POST', `${api}/roster-secret`);
    if (!answer.ok) return overview(request, formErrors(answer.problem, []), answer.status);
    return shown(request, 'roster secret', answer.body.secret);
  });

  app.post(
    '/:slug/secrets/roster/revoke',
    { config: { access: 'admin' }, schema },
    async (request, reply) => {
      const c = ctx(request);
      const { api, page } = paths(request);
      if (!confirmed(request.body))
        return confirm(
          request,
          `${page}/roster/revoke`,
          'Revoke the roster secret?',
          'The roster feed closes at once, with no fallback: every push is refused until a new secret is issued.',
          'Revoke the roster secret',
        );
      const answer = await c.api.call('DELETE', `${api}/roster-secret`);
      if (!answer.ok) return overview(request, formErrors(answer.problem, []), answer.status);
      return reply.redirect(`${page}?done=roster_secret_revoked`, 303);
    },
  );

  app.post('/:slug/secrets/help-sync', { config: { access: 'integrations' }, schema }, async (request) => {
    const c = ctx(request);
    const { api } = paths(request);
    const answer = await c.api.call<{ secret: string }>('POST', `${api}/help-sync-secret`);
    if (!answer.ok) return overview(request, formErrors(answer.problem, []), answer.status);
    return shown(request, 'help-sync secret', answer.body.secret);
  });

  app.post(
    '/:slug/secrets/help-sync/rotate',
    { config: { access: 'integrations' }, schema },
    async (request) => {
      const c = ctx(request);
      const { api, page } = paths(request);
      if (!confirmed(request.body))
        return confirm(
          request,
          `${page}/help-sync/rotate`,
          'Rotate the help-sync secret?',
          'The current help-sync secret stops working at once; the help desk must be given the new one.',
          'Rotate the help-sync secret',
        );
      const answer = await c.api.call<{ secret: string }>('POST', `${api}/help-sync-secret/rotate`);
      if (!answer.ok) return overview(request, formErrors(answer.problem, []), answer.status);
      return shown(request, 'help-sync secret', answer.body.secret);
    },
  );

  app.post(
    '/:slug/secrets/help-sync/revoke',
    { config: { access: 'integrations' }, schema },
    async (request, reply) => {
      const c = ctx(request);
      const { api, page } = paths(request);
      if (!confirmed(request.body))
        return confirm(
          request,
          `${page}/help-sync/revoke`,
          'Revoke the help-sync secret?',
          'The help-desk sync is refused at once until a new secret is issued.',
          'Revoke the help-sync secret',
        );
      const answer = await c.api.call('DELETE', `${api}/help-sync-secret`);
      if (!answer.ok) return overview(request, formErrors(answer.problem, []), answer.status);
      return reply.redirect(`${page}?done=sync_secret_revoked`, 303);
    },
  );
}
