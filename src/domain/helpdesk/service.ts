// Help requests as the student app and the staff console see them (exposed through the admin
// API for now): create, read with timeline, list, and the staff changes. Every change locks
// the request row (SELECT ... FOR UPDATE), bumps its version, appends to the timeline and
// records its event in the same transaction, so concurrent changes never lose a write.
import type { Db, Queryable } from '../../db/db.ts';
import { ApiError } from '../../errors.ts';
import type { Clock } from '../../lib/clock.ts';
import { uuidPattern } from '../../lib/ids.ts';
import { recordEvent } from '../events/record.ts';
import { type Assignee, type AssigneeRef, listAssignees, resolveAssignee } from './assignment.ts';
import { type Assignment, isPerson, type ListFilter, listHelpRequests } from './listing.ts';
import { type Category, type Priority, type Status, staffStatusChange } from './rules.ts';
import {
  appendTimeline,
  eventData,
  type HelpRequestRow,
  helpRequestColumns,
  lockRequests,
  publicRequest,
  type TimelineEntry,
} from './store.ts';

export interface TimelineItem {
  id: string;
  seq: number;
  kind: 'note' | 'audit';
  action: string;
  actor: string | null;
  origin: 'platform' | 'integration';
  note: string | null;
  from_status: string | null;
  to_status: string | null;
  external_ref: string | null;
  assigned_to: string | null;
  assigned_to_id: string | null;
  version: number;
  created_at: Date;
}

const notFound = () =>
  new ApiError('help_request_not_found', { detail: 'no help request with this id in this institution' });

type StaffChangeResult = { row: HelpRequestRow; entries: Omit<TimelineEntry, 'version' | 'created_at'>[] };

export function createHelpRequestsService(db: Db, clock: Clock) {
  /**
   * Runs a staff change: locks the request, lets `change` compute the new row and the timeline
   * entries, writes them and one help_request.updated event (origin platform). `change`
   * returns undefined when nothing changes (no write, no event).
   */
  async function staffChange(
    institutionId: string,
    id: string,
    staff: string,
    change: (
      row: HelpRequestRow,
      now: Date,
      tx: Queryable,
    ) => Promise<StaffChangeResult | undefined> | StaffChangeResult | undefined,
  ) {
    if (!uuidPattern.test(id)) throw notFound();
    const now = clock.now();
    return db.transaction(async (tx) => {
      const current = (await lockRequests(tx, institutionId, [id.toLowerCase()])).get(id.toLowerCase());
      if (!current) throw notFound();
      const result = await change(current, now, tx);
      if (!result) return { request: publicRequest(current), changed: false };
      const next = { ...result.row, version: current.version + 1, updated_at: now };
      await tx.query(
        `UPDATE help_requests h SET status = u.status, resolved_at = u.resolved_at, version = u.version,
           staff_status_changed_at = u.staff_status_changed_at, updated_at = u.updated_at,
           assigned_person_id = CASE WHEN u.reassign THEN u.assigned_person_id ELSE h.assigned_person_id END,
           assigned_to = CASE WHEN u.reassign THEN NULL ELSE h.assigned_to END
         FROM json_to_record($3::json) AS u(status text, resolved_at timestamptz, version integer,
           staff_status_changed_at timestamptz, updated_at timestamptz, reassign boolean, assigned_person_id uuid)
         WHERE h.institution_id = $1 AND h.id = $2`,
        [
          institutionId,
          current.id,
          JSON.stringify({
            status: next.status,
            resolved_at: next.resolved_at,
            version: next.version,
            staff_status_changed_at: next.staff_status_changed_at,
            updated_at: now,
            // Only an assignment writes the assignee: any other change keeps a legacy name as it is.
            reassign:
              next.assigned_to_id !== current.assigned_to_id || next.assigned_to !== current.assigned_to,
            assigned_person_id: next.assigned_to_id,
          }),
        ],
      );
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

  async function timeline(tx: Queryable, institutionId: string, id: string): Promise<TimelineItem[]> {
    const { rows } = await tx.query<TimelineItem>(
      `SELECT id, seq, kind, action, actor, origin, note, from_status, to_status, external_ref, assigned_to,
         assigned_person_id AS assigned_to_id, version, created_at
       FROM help_request_timeline WHERE institution_id = $1 AND help_request_id = $2 ORDER BY seq`,
      [institutionId, id],
    );
    return rows;
  }

  return {
    /** Creates a help request (status new) and records help_request.created, plus help_request.crisis for crisis. */
    async create(
      institutionId: string,
      input: {
        /** The student, by id or (case-insensitive) email. */
        studentId?: string;
        studentEmail?: string;
        priority: Priority;
        category?: Category;
        summary?: string;
        actor?: string;
      },
    ) {
      const studentNotFound = () =>
        new ApiError('student_not_found', {
          detail: `no student with this ${input.studentId === undefined ? 'email' : 'id'} in this institution`,
        });
      if (input.studentId !== undefined && !uuidPattern.test(input.studentId)) throw studentNotFound();
      const now = clock.now();
      const actor = input.actor ?? null;
      return db.transaction(async (tx) => {
        const { rows } = await tx.query<HelpRequestRow>(
          `INSERT INTO help_requests (institution_id, student_id, priority, category, summary, created_at, updated_at)
           SELECT $1, s.id, $4, $7, $5, $6, $6 FROM students s
           WHERE s.institution_id = $1 AND (s.id = $2::uuid OR lower(s.email) = lower($3::text))
           RETURNING ${helpRequestColumns}`,
          [
            institutionId,
            input.studentId ?? null,
            input.studentId === undefined ? (input.studentEmail ?? null) : null,
            input.priority,
            input.summary ?? null,
            now,
            input.category ?? null,
          ],
        );
        const row = rows[0];
        if (!row) throw studentNotFound();
        await appendTimeline(tx, institutionId, [
          {
            help_request_id: row.id,
            kind: 'audit',
            action: 'created',
            actor,
            origin: 'platform',
            to_status: row.status,
            version: row.version,
            created_at: now.toISOString(),
          },
        ]);
        const data = eventData(row, 'platform', actor, now);
        const types = ['help_request.created', ...(row.priority === 'crisis' ? ['help_request.crisis'] : [])];
        for (const type of types) {
          await recordEvent(tx, { institutionId, type, helpRequestId: row.id, data, occurredAt: now });
        }
        return publicRequest(row);
      });
    },

    /** One request with its whole timeline (oldest first), or 404. */
    async get(institutionId: string, id: string) {
      if (!uuidPattern.test(id)) throw notFound();
      const { rows } = await db.query<HelpRequestRow>(
        `SELECT ${helpRequestColumns} FROM help_requests WHERE institution_id = $1 AND id = $2`,
        [institutionId, id],
      );
      if (!rows[0]) throw notFound();
      return { ...publicRequest(rows[0]), timeline: await timeline(db, institutionId, rows[0].id) };
    },

    /** One page of the listing (filters and orders: ./listing.ts); `assigned=<id>` must name a person here. */
    async list(
      institutionId: string,
      filter: ListFilter & { assignment?: Assignment & { checked?: false } },
    ) {
      const assignment = filter.assignment;
      if (assignment?.kind === 'person' && assignment.checked === false) {
        if (!(await isPerson(db, institutionId, assignment.personId)))
          throw new ApiError('invalid_field', {
            field: 'querystring.assigned',
            detail: `assigned: no person ${assignment.personId} in this institution`,
          });
      }
      return listHelpRequests(db, institutionId, filter);
    },

    /** A staff member sets the status. Setting the current status changes nothing. */
    changeStatus: (institutionId: string, id: string, input: { status: Status; staff: string }) =>
      staffChange(institutionId, id, input.staff, (row, now) => {
        const next = staffStatusChange(
          {
            status: row.status,
            externalRef: row.external_ref,
            resolvedAt: row.resolved_at,
            version: row.version,
            staffStatusChangedAt: row.staff_status_changed_at,
          },
          input.status,
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
              kind: 'audit',
              action: 'status',
              actor: input.staff,
              origin: 'platform',
              from_status: row.status,
              to_status: next.status,
            },
          ],
        };
      }),

    /** A staff member adds a staff-visible note. */
    addNote: (institutionId: string, id: string, input: { note: string; staff: string }) =>
      staffChange(institutionId, id, input.staff, (row) => ({
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
      })),

    /**
     * A staff member assigns the request to a person (by id, or by exact name for token callers:
     * ./assignment.ts), or unassigns it (null). Assigning the current assignee changes nothing.
     */
    assign: (institutionId: string, id: string, input: { assignee: AssigneeRef; staff: string }) =>
      staffChange(institutionId, id, input.staff, async (row, _now, tx) => {
        const assignee: Assignee | null = await resolveAssignee(tx, institutionId, input.assignee);
        // The same person again, or unassigning a request assigned to no one, changes nothing; a
        // legacy name (migration 0019) is replaced by any assignment, null included.
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
              actor: input.staff,
              origin: 'platform',
              // Who was assigned: their name at the time, and their id.
              assigned_to: assignee?.name ?? null,
              assigned_person_id: assignee?.id ?? null,
            },
          ],
        };
      }),

    /** The institution's active staff and admins, whom a request may be assigned to. */
    assignees: (institutionId: string) => listAssignees(db, institutionId),

    /** The institution's event log after a sequence number, oldest first (what webhook delivery reads). */
    async listEvents(institutionId: string, options: { afterSeq: number; limit: number }) {
      const { rows } = await db.query<{
        id: string;
        seq: number;
        type: string;
        help_request_id: string | null;
        payload: { type: string; timestamp: string; data: Record<string, unknown> };
        occurred_at: Date;
      }>(
        `SELECT id, seq, type, help_request_id, payload, occurred_at FROM events
         WHERE institution_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`,
        [institutionId, options.afterSeq, options.limit],
      );
      return rows;
    },
  };
}

export type HelpRequestsService = ReturnType<typeof createHelpRequestsService>;
