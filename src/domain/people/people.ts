// People of an institution who use the console: staff and admins, invited by email by an
// admin (nobody is created by signing in), and the platform's operators (institution NULL).
// Removing someone keeps their row for the audit trail, unlinks their sign-in and ends their
// sessions in the same transaction. The SQL is in ./queries/people.ts, the shapes in ./schemas.ts.
import { type Db, PgErrorCode, pgErrorCode } from '../../db/db.ts';
import { ApiError } from '../../errors.ts';
import { assertMayChangeGrants, assertMayRemove } from '../access/grant-changes.ts';
import type { Caller, Permission, Role } from '../access/policy.ts';
import type { Deps } from '../deps.ts';
import { queueInvitation } from '../notifications/queries.ts';
import {
  deleteSignInLinks,
  insertPerson,
  markPersonRemoved,
  selectPeople,
  selectPerson,
  updatePersonRow,
} from './queries/people.ts';
import type { Person } from './schemas.ts';
import { endSessionsOfPerson } from './sessions.ts';

export type { Person } from './schemas.ts';

export interface PersonInput {
  email: string;
  name: string;
  roles: Role[];
  permissions: Permission[];
  /** Email an institution's person the sign-in link (default true; operators are not emailed). */
  send_invitation?: boolean;
}

/** What the people functions need. */
export type PeopleDeps = Pick<Deps, 'db' | 'clock'>;

/** Roles and permissions as stored: each once, in a fixed order; Manage integrations needs admin. */
export function normaliseGrants(roles: Role[], permissions: Permission[]) {
  const uniqueRoles = [...new Set(roles)].sort();
  const uniquePermissions = [...new Set(permissions)].sort();
  if (uniqueRoles.length === 0) {
    throw new ApiError('invalid_field', { field: 'roles', detail: 'give at least one role: admin or staff' });
  }
  if (uniquePermissions.includes('manage_integrations') && !uniqueRoles.includes('admin')) {
    throw new ApiError('invalid_field', {
      field: 'permissions',
      detail: 'Managing integrations is an admin permission: give the admin role too',
    });
  }
  return { roles: uniqueRoles, permissions: uniquePermissions };
}

const notFound = (id: string) => new ApiError('not_found', { detail: `no person with id "${id}"` });

/** A person of the institution (null: an operator), or 404. */
export async function getPerson(db: Db, institutionId: string | null, id: string): Promise<Person> {
  const person = await selectPerson(db, institutionId, id);
  if (!person) throw notFound(id);
  return person;
}

/** The people of an institution (null: the operators), by email. */
export function listPeople(db: Db, institutionId: string | null): Promise<Person[]> {
  return selectPeople(db, institutionId);
}

/**
 * Invites a person (null institution: an operator); `by` (the caller) must be allowed to give the
 * grants asked for. An email already a member is 409 conflict. A person of an institution is
 * emailed the sign-in link unless `send_invitation` is false (docs/notifications.md).
 */
export async function invitePerson(
  { db, clock }: PeopleDeps,
  institutionId: string | null,
  input: PersonInput,
  by: Caller,
): Promise<Person> {
  const grants =
    institutionId === null
      ? { roles: ['operator'] as unknown as Role[], permissions: [] }
      : normaliseGrants(input.roles, input.permissions);
  if (institutionId !== null) assertMayChangeGrants(by, undefined, grants);
  try {
    const now = clock.now();
    const id = await db.transaction(async (tx) => {
      const added = await insertPerson(tx, institutionId, {
        email: input.email.trim(),
        name: input.name,
        ...grants,
        now,
      });
      // The invitation is queued with the person: never one without the other.
      if (institutionId !== null && input.send_invitation !== false)
        await queueInvitation(tx, institutionId, added, now);
      return added;
    });
    return getPerson(db, institutionId, id);
  } catch (error) {
    if (pgErrorCode(error) === PgErrorCode.uniqueViolation) {
      throw new ApiError('conflict', { field: 'email', detail: `${input.email} is already a member` });
    }
    throw error;
  }
}

/**
 * Changes name, roles or permissions, as `by` (the caller) is allowed to; a role taken away
 * applies to open sessions at once.
 */
export async function updatePerson(
  { db, clock }: PeopleDeps,
  institutionId: string,
  id: string,
  change: { name?: string; roles?: Role[]; permissions?: Permission[] },
  by: Caller,
): Promise<Person> {
  const current = await getPerson(db, institutionId, id);
  const grants = normaliseGrants(change.roles ?? current.roles, change.permissions ?? current.permissions);
  assertMayChangeGrants(by, current, grants);
  await updatePersonRow(db, institutionId, id, {
    name: change.name ?? current.name,
    ...grants,
    now: clock.now(),
  });
  return getPerson(db, institutionId, id);
}

/** Removes a person: their sign-in link goes, their sessions end, the row stays for the audit. */
export async function removePerson(
  deps: PeopleDeps,
  institutionId: string | null,
  id: string,
  by: Caller,
): Promise<void> {
  const { db, clock } = deps;
  assertMayRemove(by, await getPerson(db, institutionId, id));
  await db.transaction(async (tx) => {
    if (!(await markPersonRemoved(tx, institutionId, id, clock.now()))) throw notFound(id);
    await deleteSignInLinks(tx, id);
    await endSessionsOfPerson(deps, id, 'removed', tx);
  });
}

/** Ends every session of a person of this institution (they must sign in again). */
export async function endPersonSessions(
  deps: PeopleDeps,
  institutionId: string,
  id: string,
): Promise<{ ended: number }> {
  await getPerson(deps.db, institutionId, id);
  return { ended: await endSessionsOfPerson(deps, id, 'ended_by_admin') };
}
