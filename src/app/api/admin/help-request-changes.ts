// Admin API of the help desk: the staff's changes to a help request (status, note, assignment),
// each recorded in its timeline under the person who made it and announced by one event.
import type { TSchema } from 'typebox';
import { assigneeRef } from '../../../domain/helpdesk/assignment.ts';
import { addReply } from '../../../domain/helpdesk/conversation.ts';
import { actingStaff } from '../../../domain/helpdesk/rules.ts';
import {
  AssignmentBody,
  HelpRequestChange,
  NoteBody,
  ReplyAdded,
  ReplyBody,
  StatusChangeBody,
} from '../../../domain/helpdesk/schemas.ts';
import { addNote, assign, changeStatus } from '../../../domain/helpdesk/staff-changes.ts';
import { callerOf, institutionOf } from '../../context/request-context.ts';
import type { App } from '../../types.ts';
import { adminRoute } from '../route-helpers.ts';
import { errorResponses } from '../schemas.ts';
import { HelpRequestParams, helpdeskTags, helpRequestsPath } from './help-requests.ts';

const tags = helpdeskTags;
const base = helpRequestsPath;

/** The schema of a staff change to one help request: what it posts, and the change it answers. */
const staffChange = <B extends TSchema>(body: B) => ({
  params: HelpRequestParams,
  body,
  response: { 200: HelpRequestChange, ...errorResponses(400, 401, 404) },
});

export function adminHelpRequestChangeRoutes(app: App): void {
  statusAndNoteRoutes(app);
  replyAndAssignmentRoutes(app);
}

/** The status and the staff-only notes. */
function statusAndNoteRoutes(app: App): void {
  app.post(
    `${base}/:id/status`,
    adminRoute('helpdesk', tags, {
      summary: 'Staff: change the status',
      description:
        'Any status may be set. resolved stamps the resolved time; any other status clears it. A staff ' +
        'status change takes precedence over help-desk sync rows whose observed_at is earlier.',
      ...staffChange(StatusChangeBody),
    }),
    async (request) =>
      changeStatus(request.deps, institutionOf(request).id, request.params.id, {
        status: request.body.status,
        staff: actingStaff(callerOf(request), request.body.staff),
      }),
  );

  app.post(
    `${base}/:id/notes`,
    adminRoute('helpdesk', tags, {
      summary: 'Staff: add a staff-visible note',
      ...staffChange(NoteBody),
    }),
    async (request) =>
      addNote(request.deps, institutionOf(request).id, request.params.id, {
        note: request.body.note,
        staff: actingStaff(callerOf(request), request.body.staff),
      }),
  );
}

/** A reply to the student, and the assignment. */
function replyAndAssignmentRoutes(app: App): void {
  app.post(
    `${base}/:id/replies`,
    // A retried reply (same Idempotency-Key) is answered from the first, never sent twice.
    adminRoute(
      'helpdesk',
      tags,
      {
        summary: 'Staff: reply to the student',
        description:
          'A reply the student reads on their request’s page (notes stay staff-only), recorded in the timeline ' +
          'as `kind: reply` and announced by help_request.updated and help_request.reply (with the words, to ' +
          'endpoints subscribed to it). The student is emailed a link, never the words. At most 5,000 ' +
          'characters; at most 30 replies per request an hour (429 rate_limited). Send an `Idempotency-Key` ' +
          'header to retry safely. Refused while the institution is archived (409 institution_archived).',
        params: HelpRequestParams,
        body: ReplyBody,
        response: { 200: ReplyAdded, ...errorResponses(400, 401, 404, 409, 429) },
      },
      { idempotent: true },
    ),
    async (request) =>
      addReply(request.deps, institutionOf(request).id, request.params.id, {
        text: request.body.text,
        staff: actingStaff(callerOf(request), request.body.staff),
      }),
  );

  app.put(
    `${base}/:id/assignment`,
    adminRoute('helpdesk', tags, {
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
      ...staffChange(AssignmentBody),
    }),
    async (request) =>
      assign(request.deps, institutionOf(request).id, request.params.id, {
        assignee: assigneeRef(request.body),
        staff: actingStaff(callerOf(request), request.body.staff),
      }),
  );
}
