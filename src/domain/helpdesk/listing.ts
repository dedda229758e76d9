// The help-request listing's rules: filters (status, priority, student, assignment) and two orders
// (newest first, or open crisis requests first), exact over the whole listing and paged by
// keyset. Pure: the one query per page is `selectRequestPage` in ./sql/request-page.ts, where each order
// and filter has an index, so a page is a range scan after the cursor however deep it is.
import type { KeysetPage } from '../../db/keyset.ts';
import { ApiError } from '../../errors.ts';
import type { KeysetOrder } from '../../lib/cursor.ts';
import { uuidPattern } from '../../lib/ids.ts';
import type { Caller } from '../access/policy.ts';
import { type ListOrder, listOrders } from './model.ts';
import type { Category, Priority, Status } from './rules.ts';
import type { HelpRequestFilters } from './schemas.ts';
import { searchPattern } from './search.ts';

/** Help requests, newest first. */
export const helpRequestOrder: KeysetOrder = { listing: 'help-requests', key: ['timestamp', 'uuid'] };

/** Open crisis requests first, then newest first (the inbox's order). */
export const crisisFirstOrder: KeysetOrder = {
  listing: 'help-requests-crisis-first',
  key: ['int32', 'timestamp', 'uuid'],
};

export { type ListOrder, listOrders };

export const keysetOrderOf = (order: ListOrder | undefined): KeysetOrder =>
  order === 'crisis_first' ? crisisFirstOrder : helpRequestOrder;

/**
 * Whom a request is assigned to: `none` (no one), `any` (someone), or one person by id (what
 * `assigned=me` and `assigned=<person id>` resolve to). Matched by id, never by name, so two
 * people with the same name each have their own list and a renamed person keeps theirs.
 */
export type Assignment = { kind: 'none' } | { kind: 'any' } | { kind: 'person'; personId: string };

/**
 * The caller's view of `assigned`: the value as sent, and the id of the signed-in person `me`
 * stands for (undefined for the operator token). `<person id>` is checked to be a person of the
 * institution by listHelpRequests (`checked: false`); `me` needs no check.
 */
export function parseAssigned(value: string, me: string | undefined): Assignment & { checked?: false } {
  if (value === 'none') return { kind: 'none' };
  if (value === 'any') return { kind: 'any' };
  if (value === 'me') {
    if (me === undefined)
      throw new ApiError('invalid_field', {
        field: 'assigned',
        detail: 'assigned=me needs a signed-in person; a token caller names the person by id',
      });
    return { kind: 'person', personId: me };
  }
  if (uuidPattern.test(value)) return { kind: 'person', personId: value.toLowerCase(), checked: false };
  throw new ApiError('invalid_field', {
    field: 'assigned',
    detail: 'assigned must be me, none, any or the id of a person of this institution',
  });
}

/**
 * The person `assigned=me` stands for: whoever signed in (a staff member, an admin, or the
 * operator signed in through the platform's identity provider). A token caller is nobody.
 */
export function signedInPersonOf(caller: Caller): string | undefined {
  if (caller.sessionId === undefined || caller.kind === 'student') return undefined;
  return caller.personId;
}

export interface ListFilter extends KeysetPage {
  status?: Status;
  priority?: Priority;
  category?: Category;
  /** A LIKE pattern made by searchPattern (./search.ts). */
  search?: string;
  studentId?: string;
  assignment?: Assignment & { checked?: false };
  order?: ListOrder;
}

/** The listing filter a query's values ask for, for this caller, at this page. */
export function listFilterOf(query: HelpRequestFilters, caller: Caller, page: KeysetPage): ListFilter {
  return {
    ...page,
    status: query.status,
    priority: query.priority,
    category: query.category,
    search: searchPattern(query.q),
    studentId: query.student_id,
    assignment:
      query.assigned === undefined ? undefined : parseAssigned(query.assigned, signedInPersonOf(caller)),
    order: query.order,
  };
}
