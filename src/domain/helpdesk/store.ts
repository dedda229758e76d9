// SQL shared by the staff operations and the help-desk sync: the help-request row, the
// timeline entry, and the event payload built from them.
import type { Queryable } from '../../db/db.ts';
import type { EventOrigin, HelpRequestEventData } from '../events/record.ts';
import type { Category, Priority, Status, SyncState } from './rules.ts';

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
  created_at: Date;
  updated_at: Date;
}

/**
 * The columns of a HelpRequestRow. `assigned_to` is read from the person at every read, so a
 * renamed person's requests show their new name; the subquery is one index lookup by primary
 * key. Usable wherever `help_requests` is the table's name in the statement (no alias).
 */
export const helpRequestColumns = `id, institution_id, student_id, status, priority, category, summary,
  coalesce((SELECT p.name FROM people p WHERE p.id = help_requests.assigned_person_id), help_requests.assigned_to)
    AS assigned_to,
  assigned_person_id AS assigned_to_id, external_ref, resolved_at, version, staff_status_changed_at, created_at,
  updated_at`;

/** What the admin API shows of a help request. */
export function publicRequest(row: HelpRequestRow) {
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

/** Locks the institution's requests with these ids (in id order, so lockers never deadlock). */
export async function lockRequests(
  tx: Queryable,
  institutionId: string,
  ids: string[],
): Promise<Map<string, HelpRequestRow>> {
  const { rows } = await tx.query<HelpRequestRow>(
    `SELECT ${helpRequestColumns} FROM help_requests
     WHERE institution_id = $1 AND id = ANY (ARRAY(SELECT jsonb_array_elements_text($2::jsonb)::uuid))
     ORDER BY id FOR UPDATE`,
    [institutionId, JSON.stringify(ids)],
  );
  return new Map(rows.map((row) => [row.id, row]));
}

export interface TimelineEntry {
  help_request_id: string;
  kind: 'note' | 'audit';
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

/** Appends timeline entries in the given order, in one statement. */
export async function appendTimeline(tx: Queryable, institutionId: string, entries: TimelineEntry[]) {
  if (entries.length === 0) return;
  await tx.query(
    `INSERT INTO help_request_timeline (institution_id, help_request_id, kind, action, actor, origin, note,
       from_status, to_status, external_ref, assigned_to, assigned_person_id, version, created_at)
     SELECT $1, t.help_request_id, t.kind, t.action, t.actor, t.origin, t.note, t.from_status, t.to_status,
       t.external_ref, t.assigned_to, t.assigned_person_id, t.version, t.created_at
     FROM jsonb_to_recordset($2::jsonb) AS t(ord integer, help_request_id uuid, kind text, action text,
       actor text, origin text, note text, from_status text, to_status text, external_ref text,
       assigned_to text, assigned_person_id uuid, version integer, created_at timestamptz)
     ORDER BY t.ord`,
    [institutionId, JSON.stringify(entries.map((entry, ord) => ({ ...entry, ord })))],
  );
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
