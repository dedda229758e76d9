// Who may change whose roles and permissions: the one rule, used by the admin API, the console
// and the CLI alike (they all reach it through the people service).
//
// - Manage integrations opens the help-sync secret and the webhook endpoints; an admin without it
//   must not be able to hand it out (to themselves or an accomplice) or take it from its holders,
//   so granting or removing it needs the caller to hold it (or to be the operator).
//   Removing a holder takes it away too, so the same holds for removing someone who holds it.
// - Nobody changes their own roles or permissions (a name change is fine): escalation through
//   one's own record is closed whatever the permission, and an admin cannot lock themselves out
//   by mistake either; another admin, or the operator, does it.
import { ApiError } from '../../errors.ts';
import type { Caller, Permission, Role } from './policy.ts';

interface Grants {
  roles: readonly Role[];
  permissions: readonly Permission[];
}

/** The same values, in any order. */
function same(a: readonly string[], b: readonly string[]): boolean {
  const sortedB = [...b].sort();
  return a.length === b.length && [...a].sort().every((value, i) => value === sortedB[i]);
}

/**
 * Throws 403 unless `caller` may give `target` the grants `next`. `target` is the person as
 * stored (undefined for an invitation: nobody's grants before).
 */
export function assertMayChangeGrants(
  caller: Caller,
  target: ({ id: string } & Grants) | undefined,
  next: Grants,
): void {
  if (caller.kind === 'operator') return;
  const before: Grants = target ?? { roles: [], permissions: [] };
  const unchanged = same(before.roles, next.roles) && same(before.permissions, next.permissions);
  if (unchanged) return;
  const holds = (g: Grants) => g.permissions.includes('manage_integrations');
  if (holds(before) !== holds(next) && !(caller.kind === 'person' && holds(caller))) {
    throw new ApiError('manage_integrations_required', {
      field: 'permissions',
      detail: 'only an admin holding Manage integrations may grant it or take it away',
    });
  }
  if (caller.kind === 'person' && target !== undefined && target.id === caller.personId) {
    throw new ApiError('own_roles_unchangeable', {
      field: same(before.roles, next.roles) ? 'permissions' : 'roles',
      detail: 'nobody changes their own roles or permissions: ask another admin',
    });
  }
}

/**
 * Throws 403 unless `caller` may remove `target`: removing a Manage integrations holder takes the
 * permission away, which only a holder or the operator may do.
 */
export function assertMayRemove(caller: Caller, target: Grants): void {
  if (caller.kind === 'operator') return;
  const holds = (g: Grants) => g.permissions.includes('manage_integrations');
  if (holds(target) && !(caller.kind === 'person' && holds(caller))) {
    throw new ApiError('manage_integrations_required', {
      detail: 'only an admin holding Manage integrations, or the operator, may remove someone who holds it',
    });
  }
}
