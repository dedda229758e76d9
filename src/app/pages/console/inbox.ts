// The help-request inbox (staff and admins): open crisis requests first, then every request
// with filters (status, priority, assigned to me or to no one), all applied by the API to the
// whole listing; a request's page with its timeline and the staff actions (status, note,
// assignment). The API records each change under the signed-in person's name from the session.
// Assignment is to a person, chosen from the institution's staff and admins by id (a select that
// works without JavaScript), or "Assign to me"; "assigned to me" is the API's `assigned=me`,
// matched by the signed-in person's id.
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Services } from '../../../services.ts';
import type { App } from '../../types.ts';
import { query } from './api.ts';
import { ctx, institutionOf } from './context.ts';
import { formErrors, text, when } from './forms.ts';
import { CursorParam, listPage } from './listing.ts';

const statuses = ['new', 'ack', 'in_progress', 'resolved'] as const;
const priorities = ['low', 'normal', 'high', 'crisis'] as const;
const oneOf = <T extends string>(values: readonly T[], value: unknown): T | undefined =>
  values.includes(value as T) ? (value as T) : undefined;

const Params = Type.Object({ slug: Type.String() });
const RequestParams = Type.Object({ slug: Type.String(), id: Type.String({ format: 'uuid' }) });
const InboxQuery = Type.Object({
  status: Type.Optional(Type.String({ maxLength: 20 })),
  priority: Type.Optional(Type.String({ maxLength: 20 })),
  assigned: Type.Optional(Type.String({ maxLength: 20 })),
  cursor: CursorParam,
});

interface HelpRequest {
  id: string;
  status: string;
  priority: string;
  summary: string | null;
  assigned_to: string | null;
  assigned_to_id: string | null;
  external_ref: string | null;
  created_at: string;
  updated_at: string;
}

export function inboxRoutes(app: App, _services: Services): void {
  const paths = (request: FastifyRequest) => {
    const slug = institutionOf(request).slug;
    return { api: `/admin/v1/institutions/${slug}/help-requests`, page: `/console/${slug}/inbox` };
  };

  app.get(
    '/:slug/inbox',
    { config: { access: 'helpdesk' }, schema: { hide: true, params: Params, querystring: InboxQuery } },
    async (request) => {
      const c = ctx(request);
      const { api } = paths(request);
      const q = request.query;
      const filters = { status: oneOf(statuses, q.status), priority: oneOf(priorities, q.priority) };
      const assigned = oneOf(['me', 'unassigned'] as const, q.assigned);
      // The API filters and orders the whole listing: open crisis requests come first, so the
      // first pages hold every one of them, and the filters page through exactly what they match.
      const listing = await listPage<HelpRequest>(
        c.api,
        api,
        { ...filters, assigned: assigned === 'unassigned' ? 'none' : assigned, order: 'crisis_first' },
        { cursor: q.cursor, size: 50 },
      );
      const openCrisis = (r: HelpRequest) => r.priority === 'crisis' && r.status !== 'resolved';
      const self = `${paths(request).page}${query({ ...filters, assigned }) || '?'}`;
      return c.render('console/inbox.eta', {
        title: 'Help requests',
        crisis: listing.items.filter(openCrisis),
        items: listing.items.filter((r) => !openCrisis(r)),
        listing,
        filters: { ...filters, assigned },
        statuses,
        priorities,
        self,
        when,
      });
    },
  );

  const requestPage = async (request: FastifyRequest, extra: Record<string, unknown> = {}, status = 200) => {
    const c = ctx(request);
    const { api, page } = paths(request);
    const { id } = request.params as { id: string };
    const helpRequest = await c.api.get<HelpRequest & { timeline: Record<string, unknown>[] }>(
      `${api}/${id}`,
    );
    const { items: assignees } = await c.api.get<{ items: { id: string; name: string; email: string }[] }>(
      `${api}/assignees`,
    );
    // Two people with the same name are told apart by their email in the select.
    const names = new Map<string, number>();
    for (const a of assignees) names.set(a.name, (names.get(a.name) ?? 0) + 1);
    const me = c.caller.kind === 'person' ? c.caller.personId : undefined;
    return c.render(
      'console/help-request.eta',
      {
        title: `Help request: ${helpRequest.summary ?? helpRequest.id}`,
        request: helpRequest,
        back: page,
        statuses,
        assignees: assignees.map((a) => ({
          id: a.id,
          label: (names.get(a.name) ?? 0) > 1 ? `${a.name} (${a.email})` : a.name,
        })),
        me: assignees.some((a) => a.id === me) ? me : undefined,
        errors: {},
        values: {},
        when,
        ...extra,
      },
      status,
    );
  };

  app.get(
    '/:slug/inbox/:id',
    { config: { access: 'helpdesk' }, schema: { hide: true, params: RequestParams } },
    async (request) => requestPage(request),
  );

  const action = (
    path: string,
    method: 'POST' | 'PUT',
    apiPath: string,
    body: (request: FastifyRequest) => Record<string, unknown>,
    done: string,
    fields: string[],
  ) =>
    app.post(
      path,
      { config: { access: 'helpdesk' }, schema: { hide: true, params: RequestParams } },
      async (request, reply) => {
        const c = ctx(request);
        const { api, page } = paths(request);
        const values = body(request);
        const answer = await c.api.call<{ changed: boolean }>(
          method,
          `${api}/${request.params.id}/${apiPath}`,
          values,
        );
        if (answer.ok)
          return reply.redirect(
            `${page}/${request.params.id}?done=${answer.body.changed ? done : 'no_change'}`,
            303,
          );
        return requestPage(request, { values, ...formErrors(answer.problem, fields) }, answer.status);
      },
    );

  action(
    '/:slug/inbox/:id/status',
    'POST',
    'status',
    (request) => ({ status: text(request.body, 'status') }),
    'status_changed',
    ['status'],
  );
  action(
    '/:slug/inbox/:id/notes',
    'POST',
    'notes',
    (request) => ({ note: text(request.body, 'note') }),
    'note_added',
    ['note'],
  );
  action(
    '/:slug/inbox/:id/assignment',
    'PUT',
    'assignment',
    (request) => {
      if (text(request.body, 'unassign') === 'yes') return { assignee_id: null };
      const caller = ctx(request).caller;
      if (text(request.body, 'to_me') === 'yes' && caller.kind === 'person')
        return { assignee_id: caller.personId };
      return { assignee_id: text(request.body, 'assignee_id') };
    },
    'assignment_changed',
    ['assignee_id'],
  );
}
