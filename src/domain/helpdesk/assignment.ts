// Whom a help request may be assigned to: an active person of the request's institution who
// holds the staff or admin role, named by id (`assignee_id`) or, for token callers written
// before ids, by exact name (`assignee`). The rules are pure functions with unit tests beside
// them; `resolveAssignee` reads the candidates in one query and lets the rules decide.
import type { Queryable } from '../../db/db.ts';
import { ApiError } from '../../errors.ts';
import { uuidPattern } from '../../lib/ids.ts';
import type { AssigneeCandidate } from './model.ts';
import { selectAssigneeCandidates } from './queries.ts';

export type { AssigneeCandidate };

/** The assignee as the caller named them: by id, by name, or no one (unassign). */
export type AssigneeRef = { id: string } | { name: string } | null;

export interface Assignee {
  id: string;
  name: string;
}

const mayBeAssigned = (person: AssigneeCandidate) =>
  !person.removed && person.roles.some((role) => role === 'staff' || role === 'admin');

/**
 * Judges the person found for an `assignee_id` (undefined when the id is no person of this
 * institution: unknown, a student, or another institution's person, told apart by nothing).
 */
export function checkAssigneeById(id: string, person: AssigneeCandidate | undefined): Assignee {
  if (!person)
    throw new ApiError('assignee_not_found', {
      field: 'assignee_id',
      detail: `no staff member or admin with id ${id} in this institution`,
    });
  if (person.removed)
    throw new ApiError('assignee_removed', {
      field: 'assignee_id',
      detail: `${person.name} (${id}) was removed from this institution and cannot be assigned`,
    });
  if (!mayBeAssigned(person))
    throw new ApiError('assignee_not_staff', {
      field: 'assignee_id',
      detail: `${person.name} (${id}) holds neither the staff nor the admin role`,
    });
  return { id: person.id, name: person.name };
}

/**
 * Picks the person an `assignee` name stands for among the institution's people bearing exactly
 * that name: the one active staff member or admin, else a clear refusal (none, or several).
 */
export function pickAssigneeByName(name: string, people: readonly AssigneeCandidate[]): Assignee {
  const eligible = people.filter((person) => person.name === name && mayBeAssigned(person));
  if (eligible.length === 1) return { id: eligible[0].id, name: eligible[0].name };
  if (eligible.length === 0)
    throw new ApiError('assignee_not_found', {
      field: 'assignee',
      detail: `no active staff member or admin named "${name}" in this institution; send assignee_id`,
    });
  throw new ApiError('ambiguous_assignee', {
    field: 'assignee',
    detail: `${eligible.length} staff members are named "${name}"; send assignee_id (${eligible
      .map((person) => person.id)
      .sort()
      .join(', ')})`,
    candidates: eligible.map((person) => person.id).sort(),
  });
}

/** Reads the body's `assignee_id` / `assignee`: exactly one of them, null meaning unassign. */
export function assigneeRef(body: { assignee_id?: string | null; assignee?: string | null }): AssigneeRef {
  const hasId = body.assignee_id !== undefined;
  const hasName = body.assignee !== undefined;
  if (hasId === hasName)
    throw new ApiError(hasId ? 'invalid_request' : 'missing_field', {
      field: 'assignee_id',
      detail: 'send exactly one of assignee_id (a person id, or null to unassign) and assignee (a name)',
    });
  const value = hasId ? body.assignee_id : body.assignee;
  if (value === null || value === undefined) return null;
  if (!hasId) return { name: value };
  if (!uuidPattern.test(value))
    throw new ApiError('invalid_field', { field: 'assignee_id', detail: 'assignee_id must be a person id' });
  return { id: value.toLowerCase() };
}

/**
 * The person a reference stands for, checked, or null to unassign. Run in the transaction of the
 * assignment (the candidates' rows stay locked until it commits: see selectAssigneeCandidates).
 */
export async function resolveAssignee(
  tx: Queryable,
  institutionId: string,
  ref: AssigneeRef,
): Promise<Assignee | null> {
  if (ref === null) return null;
  const people = await selectAssigneeCandidates(tx, institutionId, ref);
  return 'id' in ref ? checkAssigneeById(ref.id, people[0]) : pickAssigneeByName(ref.name, people);
}
