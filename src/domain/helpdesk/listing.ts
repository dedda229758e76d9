// The help-request listing: filters (status, priority, student, assignment) and two orders
// (newest first, or open crisis requests first), exact over the whole listing and paged by
// keyset. One query per page; each order and filter has an index (migrations 0013, 0017, 0019),
// so a page is a range scan after the cursor however deep it is. The WHERE clause is built from
// the filters given, so the planner sees only the conditions that apply and picks the index
// that serves them.
import type { Queryable } from '../../db/db.ts';
import { type KeysetPage, keysetPage } from '../../db/keyset.ts';
import { ApiError } from '../../errors.ts';
import type { CursorKey, KeysetOrder } from '../../lib/cursor.ts';
import { uuidPattern } from '../../lib/ids.ts';
import type { Priority, Status } from './rules.ts';
import { type HelpRequestRow, helpRequestColumns, publicRequest } from './store.ts';

/** Help requests, newest first. */
export const helpRequestOrder: KeysetOrder = { listing: 'help-requests', key: ['timestamp', 'uuid'] };

/** Open crisis requests first, then newest first (the inbox's order). */
export const crisisFirstOrder: KeysetOrder = {
  listing: 'help-requests-crisis-first',
  key: ['int', 'timestamp', 'uuid'],
};

export const listOrders = ['newest', 'crisis_first'] as const;
export type ListOrder = (typeof listOrders)[number];

export const keysetOrderOf = (order: ListOrder | undefined): KeysetOrder =>
  order === 'crisis_first' ? crisisFirstOrder : helpRequestOrder;

/** 1 for an open crisis request, else 0; word for word the expression of help_requests_crisis_first_idx. */
const OPEN_CRISIS = "(CASE WHEN priority = 'crisis' AND status <> 'resolved' THEN 1 ELSE 0 END)";

/**
 * Whom a request is assigned to: `none` (no one), `any` (someone), or one person by id (what
 * `assigned=me` and `assigned=<person id>` resolve to). Matched by id, never by name, so two
 * people with the same name each have their own list and a renamed person keeps theirs.
 */
export type Assignment = { kind: 'none' } | { kind: 'any' } | { kind: 'person'; personId: string };

/**
 * The caller's view of `assigned`: the value as sent, and the id of the signed-in person `me`
 * stands for (undefined for the operator token). `<person id>` is checked to be a person of the
 * institution by the service (`checked: false`); `me` needs no check.
 */
export function parseAssigned(value: string, me: string | undefined): Assignment & { checked?: false } {
  if (value === 'none') return { kind: 'none' };
  if (value === 'any') return { kind: 'any' };
  if (value === 'me') {
    if (me === undefined)
      throw new ApiError('invalid_field', {
        field: 'querystring.assigned',
        detail: 'assigned=me needs a signed-in person; a token caller names the person by id',
      });
    return { kind: 'person', personId: me };
  }
  if (uuidPattern.test(value)) return { kind: 'person', personId: value.toLowerCase(), checked: false };
  throw new ApiError('invalid_field', {
    field: 'querystring.assigned',
    detail: 'assigned must be me, none, any or the id of a person of this institution',
  });
}

export interface ListFilter extends KeysetPage {
  status?: Status;
  priority?: Priority;
  studentId?: string;
  assignment?: Assignment;
  order?: ListOrder;
}

export async function listHelpRequests(db: Queryable, institutionId: string, filter: ListFilter) {
  const params: unknown[] = [institutionId];
  const param = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  const where = ['institution_id = $1'];
  if (filter.status) where.push(`status = ${param(filter.status)}`);
  if (filter.priority) where.push(`priority = ${param(filter.priority)}`);
  if (filter.studentId) where.push(`student_id = ${param(filter.studentId)}::uuid`);
  const assignment = filter.assignment;
  // A legacy name (assigned_to, see migration 0019) counts as assigned, to no person.
  if (assignment?.kind === 'none') where.push('assigned_person_id IS NULL AND assigned_to IS NULL');
  if (assignment?.kind === 'any') where.push('(assigned_person_id IS NOT NULL OR assigned_to IS NOT NULL)');
  if (assignment?.kind === 'person') where.push(`assigned_person_id = ${param(assignment.personId)}::uuid`);

  const crisisFirst = filter.order === 'crisis_first';
  const key = crisisFirst ? [OPEN_CRISIS, 'created_at', 'id'] : ['created_at', 'id'];
  const after = filter.after;
  if (after) {
    const casts = crisisFirst ? ['::int', '::timestamptz', '::uuid'] : ['::timestamptz', '::uuid'];
    // Every part of the key descends, so "after" is a plain row comparison the index range-scans.
    where.push(`(${key.join(', ')}) < (${after.map((part, i) => `${param(part)}${casts[i]}`).join(', ')})`);
  }
  const { rows } = await db.query<HelpRequestRow & { sort_key: CursorKey }>(
    `SELECT ${helpRequestColumns}, json_build_array(${key.join(', ')}) AS sort_key FROM help_requests
     WHERE ${where.join(' AND ')}
     ORDER BY ${key.map((part) => `${part} DESC`).join(', ')} LIMIT ${param(filter.limit + 1)}`,
    params,
  );
  const page = keysetPage(rows, filter.limit);
  return { items: page.items.map(publicRequest), next: page.next };
}

/** Whether this id is a person of the institution (removed people included: their requests stay theirs). */
export async function isPerson(db: Queryable, institutionId: string, personId: string): Promise<boolean> {
  const { rows } = await db.query('SELECT 1 FROM people WHERE institution_id = $1 AND id = $2', [
    institutionId,
    personId,
  ]);
  return rows.length > 0;
}
