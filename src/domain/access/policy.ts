// Who may do what to which institution: the one authorisation decision of the admin API.
// The admin scope (src/http/plugins/admin-scope.ts) authenticates the caller, resolves the
// institution a route names, and asks `authorize` before any handler runs; routes never decide
// it themselves. Each route declares the access it needs; a route that declares none is
// refused to everyone but the operator (fail closed).
//
// Tenancy comes first: a caller of institution A asking about institution B is told that B does
// not exist (404), whatever their role, so nothing about B leaks. Within their own institution,
// a caller who lacks the role or permission gets 403 `forbidden`.
import { ApiError } from '../../errors.ts';

export const roles = ['admin', 'staff'] as const;
export type Role = (typeof roles)[number];

export const permissions = ['manage_integrations'] as const;
export type Permission = (typeof permissions)[number];

/** The authenticated party behind a request. */
export type Caller =
  | {
      kind: 'operator';
      /** Name recorded in audit trails. */
      actor: string;
      /** Set when the operator signed in to the console rather than sending the token. */
      sessionId?: string;
      /** Set when the operator signed in through the platform's identity provider. */
      personId?: string;
    }
  | {
      kind: 'person';
      personId: string;
      institutionId: string;
      roles: readonly Role[];
      permissions: readonly Permission[];
      actor: string;
      sessionId: string;
    }
  | {
      kind: 'student';
      studentId: string;
      institutionId: string;
      actor: string;
      sessionId: string;
      /** The institution's time zone, in which the student pages print times. */
      timeZone: string;
    };

/**
 * What a route needs:
 * - `self`: any signed-in caller, about themselves (GET /admin/v1/me);
 * - `operator`: the platform operator only (creating institutions, campus merge, metrics);
 * - `read`: any admin or staff member of the institution (its listings);
 * - `helpdesk`: staff or admins (the help-request inbox and staff actions);
 * - `admin`: institution admins (roster secret, push history, full syncs, people, sign-in settings);
 * - `integrations`: admins holding Manage integrations (help-sync secret, webhook endpoints).
 */
export const accessLevels = ['self', 'operator', 'read', 'helpdesk', 'admin', 'integrations'] as const;
export type Access = (typeof accessLevels)[number];

/** Whether a person's roles and permissions grant an access level (tenancy aside). */
export function grants(
  person: { roles: readonly Role[]; permissions: readonly Permission[] },
  access: Access,
) {
  const admin = person.roles.includes('admin');
  switch (access) {
    case 'self':
      return true;
    case 'operator':
      return false;
    case 'read':
    case 'helpdesk':
      return admin || person.roles.includes('staff');
    case 'admin':
      return admin;
    case 'integrations':
      return admin && person.permissions.includes('manage_integrations');
  }
}

/** The answer for an institution that does not exist, or that the caller may not know of. */
export function institutionNotFound(slug: string): ApiError {
  return new ApiError('institution_not_found', { detail: `no institution with slug "${slug}"` });
}

/**
 * Throws unless `caller` may use a route needing `access`, on `institution` (undefined for
 * routes that name no institution).
 */
export function authorize(
  caller: Caller,
  access: Access | undefined,
  institution: { id: string; slug: string } | undefined,
): void {
  if (caller.kind === 'operator') return;
  // Exactly the answer an unknown slug gets, so another tenant's existence does not leak.
  if (institution !== undefined && institution.id !== caller.institutionId) {
    throw institutionNotFound(institution.slug);
  }
  if (access === 'self') return;
  if (caller.kind === 'student' || access === undefined || !grants(caller, access)) {
    throw new ApiError('forbidden', {
      detail:
        access === undefined || access === 'operator'
          ? 'only the platform operator may do this'
          : `this needs the ${access === 'integrations' ? 'admin role with Manage integrations' : access === 'admin' ? 'admin role' : 'staff or admin role'}`,
    });
  }
}
