// Reading a OneRoster provider whole before anything is applied: a provider that fails half-way
// (an error, a timeout, a refused token, a budget passed) leaves the stored data exactly as it
// was. The records are flattened as they arrive (in the parse worker: page-parser.ts) and kept,
// about 400 bytes a record: 80,000 users and enrollments are some 30 MB, and never more than
// the pull's byte budget. A delta asks each collection for records modified since the last
// good pull (OneRoster's filter dateLastModified>'…'), tobedeleted ones included.
import { slices } from '../../../lib/turns.ts';
import { COLLECTIONS, type Collection, type RecordSource, type SourceRecord } from '../records.ts';
import type { OneRosterClient } from './client.ts';
import type { PulledCollection } from './flatten.ts';

/** The collections a pull asks for, in order: every one but roles, which come inside the users. */
export const PULLED = COLLECTIONS.filter((c): c is PulledCollection => c !== 'roles');

export type Pulled = Record<Collection, SourceRecord[]>;

export async function fetchAll(client: OneRosterClient, since: Date | undefined): Promise<Pulled> {
  const filter = since ? `dateLastModified>'${since.toISOString()}'` : undefined;
  const pulled: Pulled = {
    orgs: [],
    academicSessions: [],
    courses: [],
    classes: [],
    users: [],
    roles: [],
    enrollments: [],
  };
  for (const name of PULLED) {
    for await (const page of client.collection(name, filter)) {
      for (const record of page.records) pulled[name].push(record);
      for (const role of page.roles) pulled.roles.push(role);
    }
  }
  return pulled;
}

/**
 * Only the chosen orgs (and their child orgs): their users (by role org or primary org),
 * classes (by school), those classes' enrollments and courses. Empty: everything.
 */
export function keepOrgs(pulled: Pulled, orgIds: string[]): Pulled {
  if (!orgIds.length) return pulled;
  const orgs = new Set(orgIds);
  for (const { rec } of pulled.orgs) if (orgs.has(rec.parentsourcedid)) orgs.add(rec.sourcedid);
  const users = new Set<string>();
  for (const { rec } of pulled.roles) if (orgs.has(rec.orgsourcedid)) users.add(rec.usersourcedid);
  for (const { rec } of pulled.users) if (orgs.has(rec.primaryorgsourcedid)) users.add(rec.sourcedid);
  const classes = pulled.classes.filter(({ rec }) => orgs.has(rec.schoolsourcedid));
  const classIds = new Set(classes.map(({ rec }) => rec.sourcedid));
  const courseIds = new Set(classes.map(({ rec }) => rec.coursesourcedid));
  return {
    orgs: pulled.orgs.filter(({ rec }) => orgs.has(rec.sourcedid) || !rec.parentsourcedid),
    academicSessions: pulled.academicSessions,
    courses: pulled.courses.filter(({ rec }) => courseIds.has(rec.sourcedid) || orgs.has(rec.orgsourcedid)),
    classes,
    users: pulled.users.filter(({ rec }) => users.has(rec.sourcedid)),
    roles: pulled.roles.filter(({ rec }) => users.has(rec.usersourcedid)),
    enrollments: pulled.enrollments.filter(
      ({ rec }) => classIds.has(rec.classsourcedid) || orgs.has(rec.schoolsourcedid),
    ),
  };
}

/**
 * The kept records of a collection as the mapping's source. The mapping's loops over them run on
 * the server's thread between statements: they are cut into slices with a turn of the event loop
 * between (lib/turns.ts), so that requests are answered meanwhile.
 */
export function sourceOf(records: SourceRecord[]): RecordSource {
  return async function* () {
    const { pause } = slices();
    for (const record of records) {
      const turn = pause();
      if (turn) await turn;
      yield record;
    }
  };
}
