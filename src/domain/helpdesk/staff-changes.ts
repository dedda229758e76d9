// The staff's changes to a help request: its status, a note, its assignee. Every change locks the
// request row (SELECT ... FOR UPDATE), bumps its version, appends to the timeline and records one
// help_request.updated event (origin platform) in the same transaction, so concurrent changes
// never lose a write and every change is announced exactly once. A change that changes nothing
// (the current status again, the current assignee again) writes nothing and announces nothing.
//
// Cost: one transaction of four statements (lock, update, timeline, event), plus one locking
// read of the person for an assignment.
import type { Queryable } from '../../db/db.ts';
import { uuidPattern } from '../../lib/ids.ts';
import type { Deps } from '../deps.ts';
import { recordEvent } from '../events/record.ts';
import { type Assignee, type AssigneeRef, resolveAssignee } from './assignment.ts';
import { appendTimeline, lockRequests, updateRequest } from './queries.ts';
import { helpRequestNotFound } from './requests.ts';
import { type Status, staffStatusChange } from './rules.ts';
import type { HelpRequestChange } from './schemas.ts';
import { eventData, type HelpRequestRow, publicRequest, type TimelineEntry } from './store.ts';

/** What a change makes of the request: its next row and the timeline entries that record it. */
export interface StaffChangeResult {
  row: HelpRequestRow;
  entries: Omit<TimelineEntry, 'version' | 'created_at'>[];
}

/** Computes a change from the locked row; undefined when nothing changes. */
type Change = (
  row: HelpRequestRow,
  now: Date,
  tx: Queryable,
) => Promise<StaffChangeResult | undefined> | StaffChangeResult | undefined;

/** The request of this id, locked for the transaction's change; 404 when the institution has none. */
export async function lockRequest(tx: Queryable, institutionId: string, id: string): Promise<HelpRequestRow> {
  const key = id.toLowerCase();
  const current = (await lockRequests(tx, institutionId, [key])).get(key);
  if (!current) throw helpRequestNotFound();
  return current;
}

/** Writes the changed row of a locked request: its state, version and time, its assignee if changed. */
export function writeChangedRequest(tx: Queryable, current: HelpRequestRow, next: HelpRequestRow, now: Date) {
  return updateRequest(tx, current.institution_id, current.id, {
    status: next.status,
    resolved_at: next.resolved_at,
    version: next.version,
    staff_status_changed_at: next.staff_status_changed_at,
    updated_at: now,
    // Only an assignment writes the assignee: any other change keeps a legacy name as it is.
    reassign: next.assigned_to_id !== current.assigned_to_id || next.assigned_to !== current.assigned_to,
    assigned_person_id: next.assigned_to_id,
  });
}

/**
 * Runs a staff change: locks the request, lets `change` compute the new row and the timeline
 * entries, writes them and one help_request.updated event attributed to `staff`.
 */
export async function staffChange(
  { db, clock }: Pick<Deps, 'db' | 'clock'>,
  institutionId: string,
  id: string,
  staff: string,
  change: Change,
): Promise<HelpRequestChange> {
  if (!uuidPattern.test(id)) throw helpRequestNotFound();
  const now = clock.now();
  return db.transaction(async (tx) => {
    const current = await lockRequest(tx, institutionId, id);
    const result = await change(current, now, tx);
    if (!result) return { request: publicRequest(current), changed: false };
    const next = { ...result.row, version: current.version + 1, updated_at: now };
    await writeChangedRequest(tx, current, next, now);
    await appendTimeline(
      tx,
      institutionId,
      result.entries.map((entry) => ({ ...entry, version: next.version, created_at: now.toISOString() })),
    );
    await recordEvent(tx, {
      institutionId,
      type: 'help_request.updated',
      helpRequestId: current.id,
      data: eventData(next, 'platform', staff, now),
      occurredAt: now,
    });
    return { request: publicRequest(next), changed: true };
  });
}

/** What a status change makes of a row (the rule: staffStatusChange in ./rules.ts). */
export function statusChange(row: HelpRequestRow, status: Status, staff: string, now: Date) {
  const next = staffStatusChange(
    {
      status: row.status,
      externalRef: row.external_ref,
      resolvedAt: row.resolved_at,
      version: row.version,
      staffStatusChangedAt: row.staff_status_changed_at,
    },
    status,
    now,
  );
  if (!next) return undefined;
  return {
    row: {
      ...row,
      status: next.status,
      resolved_at: next.resolvedAt,
      staff_status_changed_at: next.staffStatusChangedAt,
    },
    entries: [
      {
        help_request_id: row.id,
        kind: 'audit' as const,
        action: 'status',
        actor: staff,
        origin: 'platform' as const,
        from_status: row.status,
        to_status: next.status,
      },
    ],
  };
}

/**
 * What assigning `assignee` (null: no one) makes of a row. The same person again, or unassigning a
 * request assigned to no one, changes nothing; a legacy name (migration 0019) is replaced by any
 * assignment, null included.
 */
export function assignmentChange(
  row: HelpRequestRow,
  assignee: Assignee | null,
  staff: string,
): StaffChangeResult | undefined {
  const same =
    assignee === null
      ? row.assigned_to_id === null && row.assigned_to === null
      : row.assigned_to_id === assignee.id;
  if (same) return undefined;
  return {
    row: { ...row, assigned_to: assignee?.name ?? null, assigned_to_id: assignee?.id ?? null },
    entries: [
      {
        help_request_id: row.id,
        kind: 'audit',
        action: assignee === null ? 'unassign' : 'assign',
        actor: staff,
        origin: 'platform',
        // Who was assigned: their name at the time, and their id.
        assigned_to: assignee?.name ?? null,
        assigned_person_id: assignee?.id ?? null,
      },
    ],
  };
}

/** A staff member sets the status. Setting the current status changes nothing. */
export function changeStatus(
  deps: Pick<Deps, 'db' | 'clock'>,
  institutionId: string,
  id: string,
  input: { status: Status; staff: string },
): Promise<HelpRequestChange> {
  return staffChange(deps, institutionId, id, input.staff, (row, now) =>
    statusChange(row, input.status, input.staff, now),
  );
}

/** A staff member adds a staff-visible note. */
export function addNote(
  deps: Pick<Deps, 'db' | 'clock'>,
  institutionId: string,
  id: string,
  input: { note: string; staff: string },
): Promise<HelpRequestChange> {
  return staffChange(deps, institutionId, id, input.staff, (row) => ({
    row,
    entries: [
      {
        help_request_id: row.id,
        kind: 'note',
        action: 'note',
        actor: input.staff,
        origin: 'platform',
        note: input.note,
      },
    ],
  }));
}

/**
 * A staff member assigns the request to a person (by id, or by exact name for token callers:
 * ./assignment.ts), or unassigns it (null). Assigning the current assignee changes nothing.
 */
export function assign(
  deps: Pick<Deps, 'db' | 'clock'>,
  institutionId: string,
  id: string,
  input: { assignee: AssigneeRef; staff: string },
): Promise<HelpRequestChange> {
  return staffChange(deps, institutionId, id, input.staff, async (row, _now, tx) =>
    assignmentChange(row, await resolveAssignee(tx, institutionId, input.assignee), input.staff),
  );
}
