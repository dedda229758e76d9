// Notifications (docs/notifications.md): the admins' page (who is told of crisis requests, what
// each person asked for, the recent emails with their state and failures, and whether email is
// on) and each person's own page (every new request, requests assigned to them). Both call the
// notifications domain with the request's institution and caller, as the admin API does.
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { emailStatus } from '../../../domain/notifications/email-status.ts';
import {
  ownSettings,
  peopleSettings,
  recentOutbox,
  setCrisisRecipients,
  setOwnSettings,
} from '../../../domain/notifications/settings.ts';
import type { App } from '../../types.ts';
import { ctx, institutionOf, PageParams } from './context.ts';
import { list, refusalOf, text } from './forms.ts';
import { timesIn } from './institution-time.ts';
import {
  EMAIL_KINDS,
  emailView,
  notificationRow,
  personRow,
  STATE_FILTERS,
  stateFilters,
} from './notifications-view.ts';

const ListQuery = Type.Object({ state: Type.Optional(Type.String({ maxLength: 20 })) });

/** The notices of these pages (the `done` of their redirects). */
const notices: Record<string, string> = {
  crisis_recipients_saved: 'Saved: the people ticked are told of every new crisis request from now on.',
  own_notifications_saved: 'Your notification settings were saved.',
};
const noticeOf = (request: FastifyRequest) => {
  const done = (request.query as { done?: unknown }).done;
  return typeof done === 'string' ? notices[done] : undefined;
};

export function notificationRoutes(app: App): void {
  const baseOf = (request: FastifyRequest) => `/console/${institutionOf(request).slug}`;

  const adminPage = async (request: FastifyRequest, extra: Record<string, unknown> = {}, status = 200) => {
    const institution = institutionOf(request);
    const requested = (request.query as { state?: string }).state ?? '';
    const filter = STATE_FILTERS.some(([value]) => value === requested) ? requested : '';
    const [people, recent] = await Promise.all([
      peopleSettings(request.deps.db, institution.id),
      recentOutbox(request.deps.db, institution.id, { limit: 50, state: filter || undefined }),
    ]);
    const time = timesIn(institution.time_zone);
    const base = baseOf(request);
    return ctx(request).render(
      'console/notifications.eta',
      {
        title: 'Notifications',
        notice: noticeOf(request),
        email: emailView(emailStatus(request.deps.config)),
        people: people.map(personRow),
        kinds: EMAIL_KINDS,
        recent: recent.map((n) => notificationRow(n, base, time)),
        ...stateFilters(requested, filter, base),
        zone: institution.time_zone,
        errors: {},
        ...extra,
      },
      status,
    );
  };

  app.get(
    '/:slug/notifications',
    { config: { access: 'admin' }, schema: { hide: true, params: PageParams, querystring: ListQuery } },
    async (request) => adminPage(request),
  );

  app.post(
    '/:slug/notifications',
    { config: { access: 'admin', formFields: ['crisis'] }, schema: { hide: true, params: PageParams } },
    async (request, reply) => {
      try {
        await setCrisisRecipients(request.deps, institutionOf(request).id, list(request.body, 'crisis'));
      } catch (error) {
        const refused = refusalOf(error, []);
        return adminPage(request, refused, refused.status);
      }
      return reply.redirect(`${baseOf(request)}/notifications?done=crisis_recipients_saved`, 303);
    },
  );

  const ownPage = async (request: FastifyRequest, extra: Record<string, unknown> = {}, status = 200) => {
    const c = ctx(request);
    const personId = c.caller.kind === 'person' ? c.caller.personId : undefined;
    const settings = personId
      ? await ownSettings(request.deps.db, institutionOf(request).id, personId)
      : undefined;
    return c.render(
      'console/my-notifications.eta',
      {
        title: 'Your notifications',
        notice: noticeOf(request),
        email: emailView(emailStatus(request.deps.config)),
        settings,
        isAdmin: c.may('admin'),
        ...extra,
      },
      status,
    );
  };

  app.get(
    '/:slug/me/notifications',
    { config: { access: 'helpdesk' }, schema: { hide: true, params: PageParams } },
    async (request) => ownPage(request),
  );

  app.post(
    '/:slug/me/notifications',
    {
      config: { access: 'helpdesk', formFields: ['any_new_request', 'assigned_to_me'] },
      schema: { hide: true, params: PageParams },
    },
    async (request, reply) => {
      const c = ctx(request);
      const personId = c.caller.kind === 'person' ? c.caller.personId : undefined;
      try {
        await setOwnSettings(request.deps, institutionOf(request).id, personId, {
          any_new_request: text(request.body, 'any_new_request') === 'yes',
          assigned_to_me: text(request.body, 'assigned_to_me') === 'yes',
        });
      } catch (error) {
        const refused = refusalOf(error, []);
        return ownPage(request, refused, refused.status);
      }
      return reply.redirect(`${baseOf(request)}/me/notifications?done=own_notifications_saved`, 303);
    },
  );
}
