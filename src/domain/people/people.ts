// People of an institution who use the console: staff and admins, invited by email by an
// admin (nobody is created by signing in), and the platform's operators (institution NULL).
// Removing someone keeps their row for the audit trail, unlinks their sign-in and ends their
// sessions in the same transaction.
import { type Db, PgErrorCode, pgErrorCode } from '../../db/db.ts';
import { ApiError } from '../../errors.ts';
import type { Clock } from '../../lib/clock.ts';
import { assertMayChangeGrants } from '../access/grant-changes.ts';
import type { Caller, Permission, Role } from '../access/policy.ts';
import type { Sessions } from './sessions.ts';

export interface Person {
  id: string;
  email: string;
  name: string;
  roles: Role[];
  permissions: Permission[];
  linked: boolean;
  last_sign_in_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface PersonInput {
  email: string;
  name: string;
  roles: Role[];
  permissions: Permission[];
}

const columns = `p.id, p.email, p.name, p.roles, p.permissions, p.created_at, p.updated_at,
  EXISTS (SELECT 1 FROM sign_in_links l WHERE l.person_id = p.id) AS linked,
  (SELECT max(l.last_sign_in_at) FROM sign_in_links l WHERE l.person_id = p.id) AS last_sign_in_at`;

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
      detail: 'manage_integrations is an admin permission: add the admin role',
    });
  }
  return { roles: uniqueRoles, permissions: uniquePermissions };
}

export function createPeople(db: Db, clock: Clock, sessions: Sessions) {
  const notFound = (id: string) => new ApiError('not_found', { detail: `no person with id "${id}"` });

  async function get(institutionId: string | null, id: string): Promise<Person> {
    const { rows } = await db.query<Person>(
      `SELECT ${columns} FROM people p
       WHERE p.id = $1 AND p.institution_id IS NOT DISTINCT FROM $2 AND p.removed_at IS NULL`,
      [id, institutionId],
    );
    if (!rows[0]) throw notFound(id);
    return rows[0];
  }

  return {
    get,

    /** Invites a person; `by` (the caller) must be allowed to give the grants asked for. */
    async invite(institutionId: string | null, input: PersonInput, by: Caller): Promise<Person> {
      const grants =
        institutionId === null
          ? { roles: ['operator'] as unknown as Role[], permissions: [] }
          : normaliseGrants(input.roles, input.permissions);
      if (institutionId !== null) assertMayChangeGrants(by, undefined, grants);
      try {
        const { rows } = await db.query<{ id: string }>(
          `INSERT INTO people (institution_id, email, name, roles, permissions, created_at, updated_at)
           VALUES ($1, $2, $3, $4, $5, $6, $6) RETURNING id`,
          [institutionId, input.email.trim(), input.name, grants.roles, grants.permissions, clock.now()],
        );
        return get(institutionId, rows[0].id);
      } catch (error) {
        if (pgErrorCode(error) === PgErrorCode.uniqueViolation) {
          throw new ApiError('conflict', { field: 'email', detail: `${input.email} is already a member` });
        }
        throw error;
      }
    },

    async list(institutionId: string | null): Promise<Person[]> {
      const { rows } = await db.query<Person>(
        `SELECT ${columns} FROM people p
         WHERE p.institution_id IS NOT DISTINCT FROM $1 AND p.removed_at IS NULL
         ORDER BY lower(p.email), p.id LIMIT 5000`,
        [institutionId],
      );
      return rows;
    },

    /**
     * Changes name, roles or permissions, as `by` (the caller) is allowed to; a role taken away
     * applies to open sessions at once.
     */
    async update(
      institutionId: string,
      id: string,
      change: { name?: string; roles?: Role[]; permissions?: Permission[] },
      by: Caller,
    ): Promise<Person> {
      const current = await get(institutionId, id);
      const grants = normaliseGrants(
        change.roles ?? current.roles,
        change.permissions ?? current.permissions,
      );
      assertMayChangeGrants(by, current, grants);
      await db.query(
        `UPDATE people SET name = $3, roles = $4, permissions = $5, updated_at = $6
         WHERE id = $1 AND institution_id = $2 AND removed_at IS NULL`,
        [id, institutionId, change.name ?? current.name, grants.roles, grants.permissions, clock.now()],
      );
      return get(institutionId, id);
    },

    /** Removes a person: their sign-in link goes, their sessions end, the row stays for the audit. */
    async remove(institutionId: string | null, id: string): Promise<void> {
      await db.transaction(async (tx) => {
        const { rowCount } = await tx.query(
          `UPDATE people SET removed_at = $3, updated_at = $3
           WHERE id = $1 AND institution_id IS NOT DISTINCT FROM $2 AND removed_at IS NULL`,
          [id, institutionId, clock.now()],
        );
        if (rowCount === 0) throw notFound(id);
        await tx.query('DELETE FROM sign_in_links WHERE person_id = $1', [id]);
        await sessions.endForPerson(id, 'removed', tx);
      });
    },

    /** Ends every session of a person of this institution (they must sign in again). */
    async endSessions(institutionId: string, id: string): Promise<{ ended: number }> {
      await get(institutionId, id);
      return { ended: await sessions.endForPerson(id, 'ended_by_admin') };
    },
  };
}

export type People = ReturnType<typeof createPeople>;
