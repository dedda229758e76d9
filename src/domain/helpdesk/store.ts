// The rows shared by the staff changes and the help-desk sync: the help-request row, the
// timeline entry, and what is shown and announced of them (the admin API's help request, the
// event payload). Pure: their SQL is in ./queries.ts.
import type { EventOrigin, HelpRequestEventData } from '../events/record.ts';
import type { Category, Priority, Status, SyncState } from './rules.ts';
import type { HelpRequest } from './schemas.ts';

export interface HelpRequestRow {
  id: string;
  institution_id: string;
  student_id: string | null;
  status: Status;
  priority: Priority;
  category: Category | null;
  summary: string | null;
  /** The assigned person's current name (or a legacy name no person matched, see migration 0019). */
  assigned_to: string | null;
  /** The assigned person; null when unassigned or assigned to a legacy name only. */
  assigned_to_id: string | null;
  external_ref: string | null;
  resolved_at: Date | null;
  version: number;
  staff_status_changed_at: Date | null;
  /** When first acknowledged: assigned, replied to or moved out of New (kept by triggers, migration 0085). */
  first_response_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** What the admin API and the console show of a help request. */
export function publicRequest(row: HelpRequestRow): HelpRequest {
  return {
    id: row.id,
    student_id: row.student_id,
    status: row.status,
    priority: row.priority,
    category: row.category,
    summary: row.summary,
    assigned_to: row.assigned_to,
    assigned_to_id: row.assigned_to_id,
    external_ref: row.external_ref,
    resolved_at: row.resolved_at,
    version: row.version,
    first_response_at: row.first_response_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function syncState(row: HelpRequestRow): SyncState {
  return {
    status: row.status,
    externalRef: row.external_ref,
    resolvedAt: row.resolved_at,
    version: row.version,
    staffStatusChangedAt: row.staff_status_changed_at,
  };
}

export interface TimelineEntry {
  /** Given when the caller must know it (a reply's id is in its event); else the database makes one. */
  id?: string;
  help_request_id: string;
  /** note: staff-only; reply: to the student; student_message: the student's answer; audit: a change. */
  kind: 'note' | 'audit' | 'reply' | 'student_message';
  action: string;
  actor: string | null;
  origin: EventOrigin;
  note?: string | null;
  from_status?: string | null;
  to_status?: string | null;
  external_ref?: string | null;
  assigned_to?: string | null;
  assigned_person_id?: string | null;
  version: number;
  created_at: string;
}

/** The `data` of a help-request event (the shape webhook consumers receive). */
export function eventData(
  request: {
    id: string;
    status: string;
    priority: string;
    external_ref: string | null;
    assigned_to: string | null;
    assigned_to_id: string | null;
    version: number;
  },
  origin: EventOrigin,
  actor: string | null,
  updatedAt: Date,
): HelpRequestEventData {
  return {
    help_request_id: request.id,
    status: request.status,
    priority: request.priority,
    ...(request.external_ref !== null ? { external_ref: request.external_ref } : {}),
    assigned_to: request.assigned_to,
    assigned_to_id: request.assigned_to_id,
    origin,
    actor,
    version: request.version,
    updated_at: updatedAt.toISOString(),
  };
}
