// Who may do what to which institution: the one authorisation decision of every request. The
// request context (src/app/context/request-context.ts) authenticates the caller, resolves the
// institution a route names, and asks `authorize` before any handler runs, for the admin API, the
// console, the student pages and the sign-in pages alike; routes never decide it themselves.
// Each route declares the access it needs; the application refuses to start with a route that
// declares none.
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
      /** Set while the student's institution is archived: the student pages are closed (docs/archiving.md). */
      institutionArchivedAt?: Date | null;
    };

/**
 * What a route needs:
 * - `public`: nobody in particular; no credential is read (health, the API reference, assets,
 *   the start of sign-in);
 * - `feed`: a feed secret, which the feed route verifies itself; neither a session nor the
 *   operator token is read (a session never reaches a feed);
 * - `visitor`: nobody in particular, but the session is read when there is one (sign-out);
 * - `student`: a signed-in student (the student pages, about their own requests);
 * - `self`: any signed-in caller, about themselves (GET /admin/v1/me, the console's front door);
 * - `operator`: the platform operator only (creating institutions, campus merge, metrics);
 * - `read`: any admin or staff member of the institution (its listings);
 * - `helpdesk`: staff or admins (the help-request inbox and staff actions);
 * - `admin`: institution admins (roster secret, push history, full syncs, people, sign-in settings);
 * - `integrations`: admins holding Manage integrations (help-sync secret, webhook endpoints).
 */
export const accessLevels = [
  'public',
  'feed',
  'visitor',
  'student',
  'self',
  'operator',
  'read',
  'helpdesk',
  'admin',
  'integrations',
] as const;
export type Access = (typeof accessLevels)[number];

/** Access levels that read no credential at all: the route has no caller. */
export const anonymousAccess: ReadonlySet<Access> = new Set(['public', 'feed']);

/** Access levels open to a request without a caller. */
export const openAccess: ReadonlySet<Access> = new Set(['public', 'feed', 'visitor']);

/** Whether a person's roles and permissions grant an access level (tenancy aside). */
export function grants(
  person: { roles: readonly Role[]; permissions: readonly Permission[] },
  access: Access,
) {
  const admin = person.roles.includes('admin');
  switch (access) {
    case 'public':
    case 'feed':
    case 'visitor':
    case 'self':
      return true;
    case 'operator':
    case 'student':
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
  caller: Caller | undefined,
  access: Access | undefined,
  institution: { id: string; slug: string } | undefined,
): void {
  if (access !== undefined && openAccess.has(access)) return;
  if (!caller) {
    throw new ApiError('unauthorized', {
      detail: 'send Authorization: Bearer <operator token>, or sign in (/auth/sign-in) for a session',
    });
  }
  if (access === 'student') {
    if (caller.kind === 'student') return;
    throw new ApiError('forbidden', { detail: 'these pages are for students' });
  }
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
