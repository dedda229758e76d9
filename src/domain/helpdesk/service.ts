// The help desk bound to its database and clock: the functions of ./requests.ts and
// ./staff-changes.ts under the names every caller uses (`services.helpRequests.<name>`): the
// admin API, the console, the student pages and the CLI alike. Nothing is decided here.
import type { Db } from '../../db/db.ts';
import type { Clock } from '../../lib/clock.ts';
import type { AssigneeRef } from './assignment.ts';
import { addMessage, addReply } from './conversation.ts';
import { readEventLog } from './event-log.ts';
import type { ListFilter } from './listing.ts';
import { selectAssignees, selectEvents, selectHelpSyncReplies, updateHelpSyncReplies } from './queries.ts';
import {
  createHelpRequest,
  getHelpRequest,
  type HelpdeskDeps,
  helpRequestNotFound,
  helpRequestResolved,
  listHelpRequests,
  type NewHelpRequest,
} from './requests.ts';
import type { Status } from './rules.ts';
import { addNote, assign, changeStatus } from './staff-changes.ts';

export function createHelpRequestsService(db: Db, clock: Clock) {
  const deps: HelpdeskDeps = { db, clock };
  return {
    /** Creates a help request (status new) and records help_request.created, plus help_request.crisis for crisis. */
    create: (institutionId: string, input: NewHelpRequest) => createHelpRequest(deps, institutionId, input),
    /** One request with its whole timeline (oldest first) and its student, or 404. */
    get: (institutionId: string, id: string) => getHelpRequest(db, institutionId, id, clock.now()),
    /** One page of the listing with each row's student; `assigned=<id>` must name a person of the institution. */
    list: (institutionId: string, filter: ListFilter) =>
      listHelpRequests(db, institutionId, filter, clock.now()),
    /** A staff member sets the status. Setting the current status changes nothing. */
    changeStatus: (institutionId: string, id: string, input: { status: Status; staff: string }) =>
      changeStatus(deps, institutionId, id, input),
    /** A staff member adds a staff-visible note. */
    addNote: (institutionId: string, id: string, input: { note: string; staff: string }) =>
      addNote(deps, institutionId, id, input),
    /** A staff member replies to the student (./conversation.ts). */
    reply: (institutionId: string, id: string, input: { text: string; staff: string }) =>
      addReply(deps, institutionId, id, input),
    /**
     * The student answers on their own request: another student's request is 404, a resolved one
     * 409 help_request_resolved (they ask again instead).
     */
    studentMessage: (
      institutionId: string,
      id: string,
      input: { text: string; studentId: string; actor: string },
    ) =>
      addMessage(
        deps,
        institutionId,
        id,
        { kind: 'student_message', text: input.text, actor: input.actor, origin: 'platform' },
        (row) => {
          if (row.student_id !== input.studentId) throw helpRequestNotFound();
          if (row.status === 'resolved') throw helpRequestResolved();
        },
      ),
    /** A staff member assigns the request to a person, or unassigns it (null). */
    assign: (institutionId: string, id: string, input: { assignee: AssigneeRef; staff: string }) =>
      assign(deps, institutionId, id, input),
    /** Whether the help desk may post public replies through help-sync (the `reply` action). */
    helpSyncReplies: (institutionId: string) => selectHelpSyncReplies(db, institutionId),
    setHelpSyncReplies: (institutionId: string, on: boolean) => updateHelpSyncReplies(db, institutionId, on),
    /** The institution's active staff and admins, whom a request may be assigned to. */
    assignees: (institutionId: string) => selectAssignees(db, institutionId),
    /** The institution's event log after a sequence number, oldest first (what webhook delivery reads). */
    listEvents: (institutionId: string, options: { afterSeq: number; limit: number }) =>
      selectEvents(db, institutionId, options),
    /** A page of the event log with the sequence number to read on from. */
    eventLog: (institutionId: string, options: { afterSeq: number; limit: number }) =>
      readEventLog(db, institutionId, options),
  };
}

export type HelpRequestsService = ReturnType<typeof createHelpRequestsService>;
