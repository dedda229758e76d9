// OneRoster REST (JSON binding) records flattened to the CSV binding's columns, so the one
// mapping (src/domain/oneroster) reads both: a reference object becomes its sourcedId
// (`course: {sourcedId}` -> courseSourcedId), a list of them a comma-separated list (`terms` ->
// termSourcedIds), a user's `roles` become roles records. Unknown fields are ignored.
import type { Collection, Rec, SourceRecord } from '../records.ts';

type Json = Record<string, unknown>;

const text = (value: unknown): string =>
  typeof value === 'string'
    ? value.trim()
    : typeof value === 'number' || typeof value === 'boolean'
      ? String(value)
      : '';
const ref = (value: unknown): string =>
  value && typeof value === 'object' ? text((value as Json).sourcedId) : '';
const refs = (value: unknown): string =>
  Array.isArray(value) ? value.map(ref).filter(Boolean).join(',') : ref(value);
const list = (value: unknown): string =>
  Array.isArray(value) ? value.map(text).filter(Boolean).join(',') : text(value);

/** Flat columns of each collection (lower-cased, as the CSV reader keys them). */
const FLAT: Record<Exclude<Collection, 'roles'>, (o: Json) => Rec> = {
  orgs: (o) => ({
    sourcedid: text(o.sourcedId),
    status: text(o.status),
    name: text(o.name),
    type: text(o.type),
    identifier: text(o.identifier),
    parentsourcedid: ref(o.parent),
  }),
  academicSessions: (o) => ({
    sourcedid: text(o.sourcedId),
    status: text(o.status),
    title: text(o.title),
    type: text(o.type),
    startdate: text(o.startDate),
    enddate: text(o.endDate),
    parentsourcedid: ref(o.parent),
    schoolyear: text(o.schoolYear),
  }),
  courses: (o) => ({
    sourcedid: text(o.sourcedId),
    status: text(o.status),
    title: text(o.title),
    coursecode: text(o.courseCode),
    orgsourcedid: ref(o.org),
    grades: list(o.grades),
  }),
  classes: (o) => ({
    sourcedid: text(o.sourcedId),
    status: text(o.status),
    title: text(o.title),
    coursesourcedid: ref(o.course),
    schoolsourcedid: ref(o.school),
    termsourcedids: refs(o.terms),
  }),
  users: (o) => ({
    sourcedid: text(o.sourcedId),
    status: text(o.status),
    username: text(o.username),
    givenname: text(o.givenName),
    familyname: text(o.familyName),
    preferredgivenname: text(o.preferredFirstName ?? o.preferredGivenName),
    preferredfamilyname: text(o.preferredLastName ?? o.preferredFamilyName),
    identifier: text(o.identifier),
    email: text(o.email),
    grades: list(o.grades),
    primaryorgsourcedid: ref(o.primaryOrg),
  }),
  enrollments: (o) => ({
    sourcedid: text(o.sourcedId),
    status: text(o.status),
    classsourcedid: ref(o.class),
    usersourcedid: ref(o.user),
    schoolsourcedid: ref(o.school),
    role: text(o.role),
  }),
};

export type PulledCollection = Exclude<Collection, 'roles'>;

/** One record of a collection as the mapping reads it, named by its collection, position and sourcedId. */
export function flatten(collection: PulledCollection, object: Json, position: number): SourceRecord {
  const rec = FLAT[collection](object);
  return { origin: { file: collection, line: position, sourcedId: rec.sourcedid }, rec };
}

/** A user's roles (1.2: `roles: [{roleType, role, org}]`) as roles records. */
export function rolesOf(user: Json, position: number): SourceRecord[] {
  const roles = Array.isArray(user.roles) ? (user.roles as Json[]) : [];
  const userId = text(user.sourcedId);
  const status = text(user.status);
  const out = roles.map((role) => ({
    origin: { file: 'users', line: position, sourcedId: userId },
    rec: { usersourcedid: userId, role: text(role.role), orgsourcedid: ref(role.org), status },
  }));
  // A 1.1-shaped user (`role` and `orgs` on the user) in a 1.2 API: the same thing.
  if (!out.length && user.role) {
    const orgs = Array.isArray(user.orgs) ? (user.orgs as unknown[]).map(ref) : [''];
    for (const org of orgs.length ? orgs : ['']) {
      out.push({
        origin: { file: 'users', line: position, sourcedId: userId },
        rec: { usersourcedid: userId, role: text(user.role), orgsourcedid: org, status },
      });
    }
  }
  return out;
}
