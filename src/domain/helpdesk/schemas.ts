// The shapes of the help desk, defined once: what the domain returns (a help request, its
// timeline, the result of a staff change, the people a request may be assigned to, the event
// log) and what a staff change takes. The admin API uses them as its request and response
// schemas and the console's pages type their view models and check their forms with them, so the
// two cannot drift apart.
import { type Static, Type } from 'typebox';
import { DateTime, DisplayName, Nullable, StringEnum, Text, Uuid } from '../../lib/schema.ts';
import { listOrders } from './model.ts';
import { categories, MAX_ACTOR, MAX_NOTE, MAX_REPLY, priorities, statuses } from './rules.ts';

export const StatusSchema = StringEnum(
  statuses,
  'new, ack, in_progress or resolved (resolved is the only closed status)',
);
export const CategorySchema = StringEnum(
  categories,
  `What the request is about: ${categories.join(', ')} (docs/student-app.md)`,
);
export const PrioritySchema = StringEnum(priorities, 'low, normal, high or crisis');

const Name = (description: string) => DisplayName({ minLength: 1, maxLength: MAX_ACTOR, description });
/** Who makes a staff change: required of token callers, ignored for signed-in people (their session names them). */
const StaffName = Name(
  'The staff member making the change. Required with the operator token; a signed-in person is recorded ' +
    'under their own name from the session and this field is ignored, so the timeline shows who acted.',
);

export const HelpRequest = Type.Object({
  id: Uuid('The help_request_id used by the help-desk sync and in webhook payloads'),
  student_id: Nullable(Uuid('The student; null if the student was erased since (docs/privacy.md)')),
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
  first_response_at: Nullable(
    DateTime(
      'When the request was first acknowledged: assigned, replied to or moved out of new, whichever ' +
        'came first; null while nobody has. The inbox measures time waiting and first-response targets by it',
    ),
  ),
  created_at: DateTime(),
  updated_at: DateTime(),
});
export type HelpRequest = Static<typeof HelpRequest>;

export const TimelineItem = Type.Object({
  id: Uuid(),
  seq: Type.Integer({ description: 'Order of the entry' }),
  kind: Type.Union(
    [Type.Literal('note'), Type.Literal('audit'), Type.Literal('reply'), Type.Literal('student_message')],
    {
      description:
        'note: a staff-only note; audit: a record of a change; reply: a reply to the student (the student ' +
        "reads it); student_message: the student's answer. The words of a note, reply or answer are in `note`. " +
        'Open-ended: ignore kinds you do not know',
    },
  ),
  action: Type.String({
    description:
      'created, status, note, reply, student_message, assign, unassign (platform); acknowledge, resolve, ' +
      'reopen, note, reply, and <action>_superseded for a sync row that lost to a later staff change ' +
      '(integration)',
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
export type TimelineItem = Static<typeof TimelineItem>;

/** The student behind a request, as staff see them (./requester.ts). */
const sixWeeksStates = ['no_start', 'before', 'during', 'after'] as const;

export const RequestStudent = Type.Object({
  id: Uuid(),
  name: Nullable(Type.String({ description: 'First and last name as the roster sent them' })),
  email: Type.String(),
  student_id_ext: Type.String({ description: "The SIS's id of the student" }),
  departed: Type.Boolean({
    description: 'The student has left the roster (a full sync no longer sent them)',
  }),
  cohort: Type.Object({ id: Uuid(), name: Type.String() }),
  program: Nullable(Type.Object({ id: Uuid(), code: Type.String(), name: Nullable(Type.String()) })),
  campus: Nullable(Type.Object({ id: Uuid(), name: Type.String() })),
  six_weeks: Type.Object(
    {
      state: StringEnum(
        sixWeeksStates,
        'no_start (no start date), before, during or after their six weeks, today in the institution',
      ),
      week: Nullable(Type.Integer({ minimum: 1, maximum: 6, description: 'During: the week they are in' })),
      start: Nullable(Type.String({ format: 'date', description: 'The first day of week 1' })),
    },
    { description: 'Where the student is in their six weeks today (docs/student-app.md)' },
  ),
});
export type RequestStudent = Static<typeof RequestStudent>;

export const OpenRequestItem = Type.Object({
  id: Uuid(),
  summary: Nullable(Type.String()),
  priority: PrioritySchema,
  status: StatusSchema,
  created_at: DateTime(),
});
export type OpenRequestItem = Static<typeof OpenRequestItem>;

export const RequestStudentDetail = Type.Object({
  ...RequestStudent.properties,
  other_open_requests: Type.Array(OpenRequestItem, {
    description: "The student's other requests that are not resolved, newest first (at most 20)",
  }),
});
export type RequestStudentDetail = Static<typeof RequestStudentDetail>;

/** A help request with its whole timeline, oldest entry first. */
export const HelpRequestDetail = Type.Intersect([
  HelpRequest,
  Type.Object({
    timeline: Type.Array(TimelineItem),
    student: Nullable(RequestStudentDetail),
  }),
]);
export type HelpRequestDetail = Static<typeof HelpRequestDetail>;

/** A row of the listing: the request and who raised it (null if the student was erased). */
export const HelpRequestListItem = Type.Object({
  ...HelpRequest.properties,
  student: Nullable(RequestStudent),
});
export type HelpRequestListItem = Static<typeof HelpRequestListItem>;

/** The answer to a staff change. */
export const HelpRequestChange = Type.Object({
  request: HelpRequest,
  changed: Type.Boolean({ description: 'false when the change was a no-op (nothing written, no event)' }),
});
export type HelpRequestChange = Static<typeof HelpRequestChange>;

/** A person a help request may be assigned to. */
export const AssigneeItem = Type.Object({
  id: Uuid('Send as assignee_id'),
  name: Type.String(),
  email: Type.String(),
});
export type AssigneeItem = Static<typeof AssigneeItem>;

export const InstitutionEvent = Type.Object({
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
export type InstitutionEvent = Static<typeof InstitutionEvent>;

/** A page of the event log. */
export const EventLogPage = Type.Object({
  items: Type.Array(InstitutionEvent),
  next_after_seq: Type.Integer({ description: 'Pass as after_seq to read the next page' }),
});
export type EventLogPage = Static<typeof EventLogPage>;

// What the staff changes take (the admin API's bodies; the console checks its forms with them).

export const NewHelpRequestBody = Type.Object({
  student_id: Type.Optional(Uuid('A student of this institution')),
  student_email: Type.Optional(
    Text({ minLength: 1, maxLength: 320, description: "The student's email, instead of student_id" }),
  ),
  priority: Type.Optional(PrioritySchema),
  category: Type.Optional(CategorySchema),
  summary: Type.Optional(Text({ maxLength: 2000 })),
  actor: Type.Optional(Name('Who created it (audit trail)')),
});

export const StatusChangeBody = Type.Object({ status: StatusSchema, staff: Type.Optional(StaffName) });

export const NoteBody = Type.Object({
  note: Text({ minLength: 1, maxLength: MAX_NOTE, nonBlank: true }),
  staff: Type.Optional(StaffName),
});

export const ReplyBody = Type.Object({
  text: Text({
    minLength: 1,
    maxLength: MAX_REPLY,
    nonBlank: true,
    description: 'The reply, as the student will read it (plain text; at most 5,000 characters)',
  }),
  staff: Type.Optional(StaffName),
});

/** The answer to a reply: the change, and the timeline entry that holds the reply. */
export const ReplyAdded = Type.Object({
  ...HelpRequestChange.properties,
  message_id: Uuid('The timeline entry of the reply (the `message.id` of its help_request.reply event)'),
});

export const AssignmentBody = Type.Object({
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
});

/** The filters and order of the help-request listing, as a query names them. */
export const HelpRequestFilters = Type.Object({
  status: Type.Optional(StatusSchema),
  priority: Type.Optional(PrioritySchema),
  category: Type.Optional(CategorySchema),
  q: Type.Optional(
    Type.String({
      maxLength: 1000,
      description:
        "Search: 3 to 200 characters found anywhere in the student's name, email or SIS id, or in the " +
        "request's text, whatever their case",
    }),
  ),
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
});
export type HelpRequestFilters = Static<typeof HelpRequestFilters>;
