// The help-request inbox (staff and admins): open crisis requests first, then every request
// with filters (status, priority, assigned to me or to no one), all applied by the domain to the
// whole listing; a request's page with its timeline and the staff actions (status, note,
// assignment), each recorded under the signed-in person's name from the session. Assignment is
// to a person, chosen from the institution's staff and admins by id (a select that works without
// JavaScript), or "Assign to me"; "assigned to me" is matched by the signed-in person's id.
//
// Every page calls the help desk's domain functions with the request's context, as the admin API
// does: the same access (`helpdesk`), the same rules, the forms checked against the API's schemas.
import type { FastifyRequest } from 'fastify';
import { type Static, type TSchema, Type } from 'typebox';
import type { Deps } from '../../../domain/deps.ts';
import { assigneeRef } from '../../../domain/helpdesk/assignment.ts';
import { keysetOrderOf, listFilterOf } from '../../../domain/helpdesk/listing.ts';
import { selectAssignees } from '../../../domain/helpdesk/queries.ts';
import { getHelpRequest, listHelpRequests } from '../../../domain/helpdesk/requests.ts';
import { actingStaff } from '../../../domain/helpdesk/rules.ts';
import {
  AssignmentBody,
  type HelpRequestChange,
  NoteBody,
  StatusChangeBody,
} from '../../../domain/helpdesk/schemas.ts';
import { addNote, assign, changeStatus } from '../../../domain/helpdesk/staff-changes.ts';
import { inboxSettings } from '../../../domain/inbox/settings.ts';
import { recordRequestView, seenBy } from '../../../domain/privacy/access-log.ts';
import { listCrisisContacts } from '../../../domain/students/crisis-contacts.ts';
import type { App } from '../../types.ts';
import { checkForm, type FieldText } from '../form-check.ts';
import { ctx, institutionOf, PageParams } from './context.ts';
import { checkErrors, refusalOf, text } from './forms.ts';
import {
  assignmentOf,
  helpRequestView,
  inboxFilters,
  inboxQuery,
  inboxRefusal,
  inboxView,
} from './inbox-view.ts';
import { CursorParam, readListing } from './listing.ts';
import { replyBoxData, replyRoutes } from './replies.ts';

const RequestParams = Type.Object({ slug: Type.String(), id: Type.String({ format: 'uuid' }) });
const InboxQuery = Type.Object({
  status: Type.Optional(Type.String({ maxLength: 20 })),
  priority: Type.Optional(Type.String({ maxLength: 20 })),
  category: Type.Optional(Type.String({ maxLength: 20 })),
  assigned: Type.Optional(Type.String({ maxLength: 20 })),
  q: Type.Optional(Type.String({ maxLength: 1000 })),
  cursor: CursorParam,
});
type InboxQuery = Static<typeof InboxQuery>;
/** The inbox and its live rows (a fragment: no layout, so no escalation banner read for it). */
const inboxSchema = { hide: true, params: PageParams, querystring: InboxQuery };

/** A staff action of a request's page: its form, the schema it is checked with, and the change. */
interface StaffAction<S extends TSchema> {
  path: string;
  schema: S;
  fields: Record<string, FieldText>;
  /** Every field its form posts (config.formFields). */
  formFields: readonly string[];
  values: (request: FastifyRequest) => Record<string, unknown>;
  change: (
    deps: Pick<Deps, 'db' | 'clock'>,
    institutionId: string,
    id: string,
    value: Static<S>,
    staff: string,
  ) => Promise<HelpRequestChange>;
  /** The notice shown after a change (`done=`). */
  done: string;
}

const pageOf = (request: FastifyRequest) => `/console/${institutionOf(request).slug}/inbox`;

export function inboxRoutes(app: App): void {
  listingRoutes(app);
  app.get(
    '/:slug/inbox/:id',
    { config: { access: 'helpdesk' }, schema: { hide: true, params: RequestParams } },
    async (request) => requestPage(request),
  );
  replyRoutes(app, requestPage);
  staffActionRoutes(app);
}

/** The inbox's view for a request's filters and page: the listing with time waiting per row. */
async function inboxPage(request: FastifyRequest<{ Querystring: InboxQuery }>) {
  const c = ctx(request);
  const filters = inboxFilters(request.query);
  const query = inboxQuery(filters);
  const institutionId = institutionOf(request).id;
  const refused = inboxRefusal(request.query);
  const cursor = request.query.cursor || undefined;
  const [listing, settings] = await Promise.all([
    refused
      ? { items: [], paged: false, problem: refused }
      : readListing(keysetOrderOf(query.order), { cursor, size: 50 }, (page) =>
          listHelpRequests(request.deps, institutionId, listFilterOf(query, c.caller, page)),
        ),
    inboxSettings(request.deps.db, institutionId),
  ]);
  const clock = { settings, now: request.deps.clock.now() };
  return { view: inboxView(listing, filters, pageOf(request), clock, cursor), status: refused ? 400 : 200 };
}

/** The inbox, and its rows alone for the live refresh. */
function listingRoutes(app: App): void {
  app.get('/:slug/inbox', { config: { access: 'helpdesk' }, schema: inboxSchema }, async (request) => {
    const { view, status } = await inboxPage(request);
    return ctx(request).render('console/inbox.eta', view, status);
  });

  // The inbox's rows alone (the crisis panel, the table and the pager), which the open inbox
  // fetches every few seconds (/assets/console.js) and puts in place of its own: filters, page and
  // scroll position stay as they are, and a new crisis request shows within seconds.
  app.get(
    '/:slug/inbox/rows',
    { config: { access: 'helpdesk', fragment: true }, schema: inboxSchema },
    async (request) => {
      const { view, status } = await inboxPage(request);
      return ctx(request).render('console/inbox-live.eta', { ...view, fragment: true }, status);
    },
  );
}

/** A request's page: its timeline, the staff actions and the reply box (`extra`: a form shown again). */
async function requestPage(request: FastifyRequest, extra: Record<string, unknown> = {}, status = 200) {
  const c = ctx(request);
  const { db } = request.deps;
  const institutionId = institutionOf(request).id;
  const { id } = request.params as { id: string };
  // Who looked (docs/privacy.md): this view is one INSERT beside the page's reads, and the
  // page shows who opened the request before (this view included).
  const [helpRequest, assignees, contacts, replyBox, seen] = await Promise.all([
    getHelpRequest(request.deps, institutionId, id),
    selectAssignees(db, institutionId),
    listCrisisContacts(db, institutionId),
    replyBoxData(db, institutionId),
    recordRequestView(request.deps, c.caller, institutionId, id, 'console').then(() =>
      seenBy(db, institutionId, id),
    ),
  ]);
  return c.render(
    'console/help-request.eta',
    {
      ...helpRequestView(helpRequest, assignees, c.caller, pageOf(request), contacts),
      ...replyBox,
      seenBy: seen,
      ...extra,
    },
    status,
  );
}

/** Posts a staff action's form: checked, the change made, then back to the request's page. */
function staffActionRoute<S extends TSchema>(app: App, spec: StaffAction<S>): void {
  app.post(
    spec.path,
    {
      config: { access: 'helpdesk', formFields: spec.formFields },
      schema: { hide: true, params: RequestParams },
    },
    async (request, reply) => {
      const values = spec.values(request);
      const checked = checkForm(spec.schema, values, spec.fields);
      if (!checked.ok) return requestPage(request, { values, ...checkErrors(checked.errors) }, 400);
      const { id } = request.params;
      try {
        const staff = actingStaff(ctx(request).caller, undefined);
        const { changed } = await spec.change(
          request.deps,
          institutionOf(request).id,
          id,
          checked.value,
          staff,
        );
        return reply.redirect(`${pageOf(request)}/${id}?done=${changed ? spec.done : 'no_change'}`, 303);
      } catch (error) {
        const refused = refusalOf(error, Object.keys(spec.fields));
        return requestPage(request, { values, ...refused }, refused.status);
      }
    },
  );
}

/** The staff actions of a request's page: the status, a note, the assignment. */
function staffActionRoutes(app: App): void {
  staffActionRoute(app, {
    path: '/:slug/inbox/:id/status',
    schema: StatusChangeBody,
    fields: { status: { label: 'New status' } },
    formFields: ['status'],
    values: (request) => ({ status: text(request.body, 'status') }),
    change: (deps, institutionId, id, value, staff) =>
      changeStatus(deps, institutionId, id, { status: value.status, staff }),
    done: 'status_changed',
  });
  staffActionRoute(app, {
    path: '/:slug/inbox/:id/notes',
    schema: NoteBody,
    fields: { note: { label: 'Note', required: 'Write the note before adding it' } },
    formFields: ['note'],
    values: (request) => ({ note: text(request.body, 'note') }),
    change: (deps, institutionId, id, value, staff) =>
      addNote(deps, institutionId, id, { note: value.note, staff }),
    done: 'note_added',
  });
  staffActionRoute(app, {
    path: '/:slug/inbox/:id/assignment',
    schema: AssignmentBody,
    fields: { assignee_id: { label: 'Assign to', required: 'Choose a staff member or admin' } },
    formFields: ['assignee_id', 'to_me', 'unassign'],
    values: (request) => assignmentOf(request.body, ctx(request).caller),
    change: (deps, institutionId, id, value, staff) =>
      assign(deps, institutionId, id, { assignee: assigneeRef(value), staff }),
    done: 'assignment_changed',
  });
}
