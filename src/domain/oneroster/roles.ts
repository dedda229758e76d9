// Which users are students, and in which orgs: from the users' own `role` and `orgSourcedIds`
// (OneRoster 1.1), or from the roles records (1.2), packed outside V8's heap; what a delta omits
// is looked up in the memory of earlier pushes (known.ts). Used by the roster (students.ts).

import { PackedMap } from '../../lib/packed-map.ts';
import type { KnownUpdate } from './known.ts';
import { deleted, type Rec, type RecordSource } from './records.ts';

/**
 * A user's roles in 1.2 data, packed outside V8's heap (packed-map.ts): NOT_STUDENT, or the orgs
 * of their student roles (not tobedeleted) joined by NUL, '' for none. A Map held a string key
 * and a table entry for each of 20,000 users in the heap (an object and an array each before).
 */
const NOT_STUDENT = '\u0001';

/**
 * Which users hold which roles, in 1.2 data (roles records). A tobedeleted role still says the
 * user was a student, so a user leaving with their roles is counted, not silently dropped.
 */
export async function rolesOf(roles: RecordSource, studentRoles: string[]): Promise<PackedMap> {
  const byUser = new PackedMap();
  for await (const { rec } of roles()) {
    const held = byUser.get(rec.usersourcedid);
    if (held === undefined) byUser.set(rec.usersourcedid, NOT_STUDENT);
    if (!studentRoles.includes((rec.role ?? '').toLowerCase())) continue;
    const orgs = held === undefined || held === NOT_STUDENT ? '' : held;
    const org = rec.orgsourcedid;
    if (!org || deleted(rec)) byUser.set(rec.usersourcedid, orgs);
    else byUser.set(rec.usersourcedid, orgs ? `${orgs}\u0000${org}` : org);
  }
  return byUser;
}

/** Is the user a student, and in which orgs; `unknown` when a delta omits their roles and no push said. */
export function placeOfUser(
  rec: Rec,
  ctx: {
    roles: PackedMap | undefined;
    studentRoles: string[];
    rolesComplete: boolean;
    known: KnownUpdate;
  },
): { student: boolean; orgs: string[] } | 'unknown' {
  const { roles, studentRoles, rolesComplete, known } = ctx;
  if (!roles) {
    const orgIds = (rec.orgsourcedids ?? '')
      .split(',')
      .map((o) => o.trim())
      .filter(Boolean);
    return { student: studentRoles.includes((rec.role ?? '').toLowerCase()), orgs: orgIds };
  }
  const found = roles.get(rec.sourcedid);
  if (found !== undefined && found !== NOT_STUDENT) {
    const fromKnown = known.students.get(rec.sourcedid)?.slice(1) ?? [];
    const orgIds = found ? found.split('\u0000') : fromKnown.length ? fromKnown : [rec.primaryorgsourcedid];
    return { student: true, orgs: orgIds.filter(Boolean) };
  }
  if (found !== undefined) return { student: false, orgs: [] };
  // No roles record in this data: a delta carrying the user's changed name only.
  const remembered = known.students.get(rec.sourcedid);
  if (remembered) return { student: true, orgs: remembered.slice(1) };
  // Complete roles (a bulk export, an API's users) without one: the user holds no role.
  if (rolesComplete || known.others.has(rec.sourcedid)) return { student: false, orgs: [] };
  return 'unknown';
}
