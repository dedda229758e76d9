// Admin API of the help desk: help requests (standing in for the student app and the staff
// console) and the institution's event log. The help-sync secret: ./admin-help-sync-secret.ts.
import { Type } from 'typebox';
import { assigneeRef } from '../../../domain/helpdesk/assignment.ts';
import { keysetOrderOf, listOrders, parseAssigned } from '../../../domain/helpdesk/listing.ts';
import { actingStaff, categories, MAX_ACTOR, priorities, statuses } from '../../../domain/helpdesk/rules.ts';
import { ApiError } from '../../../errors.ts';
import type { Services } from '../../../services.ts';
import { callerOf, institutionOf } from '../../context/request-context.ts';
import type { App } from '../../types.ts';
import {
  adminSecurity,
  CursorQuery,
  DateTime,
  errorResponses,
  Nullable,
  Page,
  pageOf,
  pageReply,
  SlugParams,
  StringEnum,
  Text,
  Uuid,
} from '../schemas.ts';

const StatusSchema = StringEnum(
  statuses,
  'new, ack, in_progress or resolved (resolved is the only closed status)',
);
const CategorySchema = StringEnum(
  categories,
  `What the request is about: ${categories.join(', ')} (docs/student-app.md)`,
);
const PrioritySchema = StringEnum(priorities, 'low, normal, high or crisis');
const Name = (description: string) => Text({ minLength: 1, maxLength: MAX_ACTOR, description });
/** Who makes a staff change: required of token callers, ignored for signed-in people (their session names them). */
const StaffName = Name(
  'The staff member making the change. Required with the operator token; a signed-in person is recorded ' +
    'under their own name from the session and this field is ignored, so the timeline shows who acted.',
);

const HelpRequest = Type.Object({
  id: Uuid('The help_request_id used by the help-desk sync and in webhook payloads'),
  student_id: Nullable(Uuid('The student; null if the student record was deleted since')),
  status: StatusSchema,
  priority: PrioritySchema,
  category: Nullable(CategorySchema),
  summary: Nullable(Type.String()),
  assigned_to: Nullable(
    Type.String({
      description:
        "The assigned person's current name (a rename shows at once); null when unassigned. A name " +
        'assigned before assignments were by person and matching no single person is shown as it was, ' +
        'with assigned_to_id null',
    }),
  ),
  assigned_to_id: Nullable(Uuid('The assigned person (a staff member or admin); null when unassigned')),
  external_ref: Nullable(Type.String({ description: 'Set by the help-desk sync' })),
  resolved_at: Nullable(DateTime('Set when resolved; cleared on reopen')),
  version: Type.Integer({ description: 'Incremented by every change' }),
  created_at: DateTime(),
  updated_at: DateTime(),
});

const TimelineItem = Type.Object({
  id: Uuid(),
  seq: Type.Integer({ description: 'Order of the entry' }),
  kind: Type.Union([Type.Literal('note'), Type.Literal('audit')], {
    description: 'note: a staff-visible note; audit: a record of a change',
  }),
  action: Type.String({
    description:
      'created, status, note, assign, unassign (platform); acknowledge, resolve, reopen, note, and ' +
      '<action>_superseded for a sync row that lost to a later staff change (integration)',
  }),
  actor: Nullable(Type.String({ description: 'Staff member or integration actor name' })),
  origin: Type.Union([Type.Literal('platform'), Type.Literal('integration')]),
  note: Nullable(Type.String()),
  from_status: Nullable(Type.String()),
  to_status: Nullable(Type.String()),
  external_ref: Nullable(Type.String({ description: 'The external_ref sent with this change, if any' })),
  assigned_to: Nullable(
    Type.String({ description: 'assign: the name of the person assigned, as it was at the time' }),
  ),
  assigned_to_id: Nullable(Uuid('assign: the id of the person assigned')),
  version: Type.Integer({ description: "The request's version after this entry" }),
  created_at: DateTime(),
});

const Changed = Type.Object({
  request: HelpRequest,
  changed: Type.Boolean({ description: 'false when the change was a no-op (nothing written, no event)' }),
});

const IdParams = Type.Intersect([SlugParams, Type.Object({ id: Uuid('Help request id') })]);

const EventItem = Type.Object({
  id: Uuid('Event id (stable; the webhook-id of deliveries)'),
  seq: Type.Integer({ description: 'Position in the event log; pass as after_seq to read on' }),
  type: Type.String({ examples: ['help_request.updated'] }),
  help_request_id: Nullable(Uuid()),
  payload: Type.Object(
    {
      type: Type.String(),
      timestamp: Type.String(),
      data: Type.Record(Type.String(), Type.Unknown()),
    },
    {
      description:
        'The webhook body: {type, timestamp, data}; data has help_request_id, status, priority, external_ref ' +
        '(once set), assigned_to and assigned_to_id (null when unassigned), origin (platform|integration), ' +
        'actor, version and updated_at.',
    },
  ),
  occurred_at: DateTime(),
});

export function adminHelpdeskRoutes(app: App, services: Services): void {
  const { helpRequests } = services;
  const tags = ['admin: help desk'];
  const security = adminSecurity;
  const base = '/admin/v1/institutions/:slug/help-requests';

  app.post(
    base,
    {
      config: { access: 'helpdesk' },
      schema: {
        tags,
        security,
        summary: 'Create a help request for a student',
        description:
          'Name the student by `student_id` or by `student_email` (case-insensitive), not both. Status starts ' +
          'at new. Records help_request.created, and help_request.crisis as well for a crisis priority, in the ' +
          'same transaction.',
        params: SlugParams,
        body: Type.Object({
          student_id: Type.Optional(Uuid('A student of this institution')),
          student_email: Type.Optional(
            Text({ minLength: 1, maxLength: 320, description: "The student's email, instead of student_id" }),
          ),
          priority: Type.Optional(PrioritySchema),
          category: Type.Optional(CategorySchema),
          summary: Type.Optional(Text({ maxLength: 2000 })),
          actor: Type.Optional(Name('Who created it (audit trail)')),
        }),
        response: { 201: HelpRequest, ...errorResponses(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const { student_id, student_email } = request.body;
      if ((student_id === undefined) === (student_email === undefined))
        throw new ApiError(student_id === undefined ? 'missing_field' : 'invalid_request', {
          field: 'student_id',
          detail: 'name the student by exactly one of student_id and student_email',
        });
      return reply.status(201).send(
        await helpRequests.create(institutionOf(request).id, {
          studentId: student_id,
          studentEmail: student_email,
          priority: request.body.priority ?? 'normal',
          category: request.body.category,
          summary: request.body.summary,
          actor: request.body.actor,
        }),
      );
    },
  );

  app.get(
    base,
    {
      config: { access: 'helpdesk' },
      schema: {
        tags,
        security,
        summary: 'List help requests (newest first, or open crisis requests first)',
        description:
          'Every filter is exact over the whole listing and combines with the others and with either order; ' +
          'next_cursor pages through the result (pass the same filters and order with it). A cursor of one ' +
          'order is 400 invalid_cursor in the other. Bad filter values are 400 invalid_field naming the ' +
          'field (`querystring.assigned`, …).',
        params: SlugParams,
        querystring: Type.Intersect([
          CursorQuery,
          Type.Object({
            status: Type.Optional(StatusSchema),
            priority: Type.Optional(PrioritySchema),
            student_id: Type.Optional(Uuid()),
            assigned: Type.Optional(
              Type.String({
                maxLength: 36,
                description:
                  'Whom the request is assigned to: `me` (the signed-in person; a token caller names the ' +
                  'person by id instead), `none` (unassigned), `any` (assigned to someone), or the id of a ' +
                  'person of this institution. Matched by the person id, never by name: two people with the same ' +
                  'name each see their own requests, and a renamed person keeps theirs',
              }),
            ),
            order: Type.Optional(
              StringEnum(
                listOrders,
                '`newest` (default): newest first. `crisis_first`: open crisis requests (priority crisis, ' +
                  'not resolved) first, then every other request; each group newest first',
              ),
            ),
          }),
        ]),
        response: { 200: Page(HelpRequest), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const q = request.query;
      const caller = callerOf(request);
      const order = keysetOrderOf(q.order);
      return pageReply(
        order,
        await helpRequests.list(institutionOf(request).id, {
          ...pageOf(order, q),
          status: q.status,
          priority: q.priority,
          studentId: q.student_id,
          assignment:
            q.assigned === undefined
              ? undefined
              : parseAssigned(
                  q.assigned,
                  caller.sessionId !== undefined && caller.kind !== 'student' ? caller.personId : undefined,
                ),
          order: q.order,
        }),
      );
    },
  );

  app.get(
    `${base}/:id`,
    {
      config: { access: 'helpdesk' },
      schema: {
        tags,
        security,
        summary: 'Read a help request with its timeline (notes and audit entries, oldest first)',
        params: IdParams,
        response: {
          200: Type.Intersect([HelpRequest, Type.Object({ timeline: Type.Array(TimelineItem) })]),
          ...errorResponses(400, 401, 404),
        },
      },
    },
    async (request) => helpRequests.get(institutionOf(request).id, request.params.id),
  );

  app.post(
    `${base}/:id/status`,
    {
      config: { access: 'helpdesk' },
      schema: {
        tags,
        security,
        summary: 'Staff: change the status',
        description:
          'Any status may be set. resolved stamps the resolved time; any other status clears it. A staff ' +
          'status change takes precedence over help-desk sync rows whose observed_at is earlier.',
        params: IdParams,
        body: Type.Object({ status: StatusSchema, staff: Type.Optional(StaffName) }),
        response: { 200: Changed, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) =>
      helpRequests.changeStatus(institutionOf(request).id, request.params.id, {
        status: request.body.status,
        staff: actingStaff(callerOf(request), request.body.staff),
      }),
  );

  app.post(
    `${base}/:id/notes`,
    {
      config: { access: 'helpdesk' },
      schema: {
        tags,
        security,
        summary: 'Staff: add a staff-visible note',
        params: IdParams,
        body: Type.Object({
          note: Text({ minLength: 1, maxLength: 10_000, nonBlank: true }),
          staff: Type.Optional(StaffName),
        }),
        response: { 200: Changed, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) =>
      helpRequests.addNote(institutionOf(request).id, request.params.id, {
        note: request.body.note,
        staff: actingStaff(callerOf(request), request.body.staff),
      }),
  );

  app.get(
    `${base}/assignees`,
    {
      config: { access: 'helpdesk' },
      schema: {
        tags,
        security,
        summary: 'Staff and admins a help request may be assigned to, by name',
        description:
          'The active (not removed) people of the institution holding the staff or admin role, ordered by ' +
          'name; the email tells apart people with the same name.',
        params: SlugParams,
        response: {
          200: Type.Object({
            items: Type.Array(
              Type.Object({ id: Uuid('Send as assignee_id'), name: Type.String(), email: Type.String() }),
            ),
          }),
          ...errorResponses(401, 404),
        },
      },
    },
    async (request) => ({ items: await helpRequests.assignees(institutionOf(request).id) }),
  );

  app.put(
    `${base}/:id/assignment`,
    {
      config: { access: 'helpdesk' },
      schema: {
        tags,
        security,
        summary: 'Staff: assign the request to a staff member or admin, or unassign it',
        description:
          'Send `assignee_id`: the id of an active person of this institution holding the staff or admin ' +
          'role (GET …/help-requests/assignees lists them), or null to unassign. Anyone else is 400 with ' +
          '`field: assignee_id`: `assignee_not_found` (no such person here: unknown, a student, or a person ' +
          'of another institution), `assignee_removed`, `assignee_not_staff`.\n\n' +
          'For callers written before ids, `assignee` (a name) is still accepted instead: it stands for the ' +
          'one active staff member or admin with exactly that name (case and spaces as stored); none is ' +
          '400 `assignee_not_found`, several are 400 `ambiguous_assignee` listing their ids in `candidates`, ' +
          'both with `field: assignee`. `assignee: null` unassigns. Send one of the two fields, not both.\n\n' +
          'The timeline records who assigned (actor) whom (assigned_to, assigned_to_id); assigning the ' +
          'current assignee changes nothing.',
        params: IdParams,
        body: Type.Object({
          assignee_id: Type.Optional(
            Nullable(
              Type.String({
                maxLength: 36,
                description: 'The person to assign (a staff member or admin), or null to unassign',
              }),
            ),
          ),
          assignee: Type.Optional(
            Nullable(Name('Deprecated: the exact name of the one staff member or admin to assign')),
          ),
          staff: Type.Optional(StaffName),
        }),
        response: { 200: Changed, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) =>
      helpRequests.assign(institutionOf(request).id, request.params.id, {
        assignee: assigneeRef(request.body),
        staff: actingStaff(callerOf(request), request.body.staff),
      }),
  );

  app.get(
    '/admin/v1/institutions/:slug/events',
    {
      config: { access: 'integrations' },
      schema: {
        tags,
        security,
        summary: "Read the institution's event log, oldest first",
        description:
          'Every help-request change records an event in the transaction of the change; this is the log ' +
          'webhook delivery reads. Page with after_seq = the last seq read.',
        params: SlugParams,
        querystring: Type.Object({
          after_seq: Type.Optional(
            Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: 0 }),
          ),
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
        }),
        response: {
          200: Type.Object({
            items: Type.Array(EventItem),
            next_after_seq: Type.Integer({ description: 'Pass as after_seq to read the next page' }),
          }),
          ...errorResponses(400, 401, 404),
        },
      },
    },
    async (request) => {
      const afterSeq = request.query.after_seq ?? 0;
      const items = await helpRequests.listEvents(institutionOf(request).id, {
        afterSeq,
        limit: request.query.limit ?? 100,
      });
      const last = items.at(-1);
      return { items, next_after_seq: last ? (last.seq as number) : afterSeq };
    },
  );
}
