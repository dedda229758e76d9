// The students of a OneRoster bundle and their enrolments, streamed: users.csv becomes the
// roster (once per cohort), enrollments.csv the enrolments, each read when its job's turn
// comes. Two things grow with the student count: the students' roles of a 1.2 bundle
// (roles.csv joined to users.csv), and, when students are keyed by something other than their
// sourcedId, the sourcedId -> key map enrolments need.

import type { Catalogue } from './catalogue.ts';
import type { OneRosterMapping } from './mapping.ts';
import { deleted, type Mapped as Item, type RecordSource } from './records.ts';

export interface Students {
  /** The cohorts students go to, the first also taking students placed nowhere (as errors). */
  cohorts: string[];
  /** The users of one cohort as roster rows. */
  users(cohortId: string): AsyncGenerator<Item>;
  /** Enrollments of students as enrolment rows (read after the roster, whose keys they use). */
  enrolments(): AsyncGenerator<Item>;
  /** Students marked tobedeleted, left out of the push. */
  readonly tobedeleted: number;
}

/**
 * Which users are students and in which orgs: 1.1 says so in users.csv (`role`,
 * `orgSourcedIds`); 1.2 in roles.csv, read here and held as a map from user to orgs.
 */
async function studentOrgsOf(
  rolesInUsers: boolean,
  roles: RecordSource | undefined,
  studentRoles: string[],
): Promise<Map<string, string[]> | undefined> {
  if (rolesInUsers) return undefined;
  if (!roles) throw new Error('OneRoster 1.2 users need their roles: cannot tell which users are students');
  const studentOrgs = new Map<string, string[]>();
  for await (const { rec } of roles()) {
    if (deleted(rec) || !studentRoles.includes((rec.role ?? '').toLowerCase())) continue;
    const list = studentOrgs.get(rec.usersourcedid) ?? [];
    if (rec.orgsourcedid) list.push(rec.orgsourcedid);
    studentOrgs.set(rec.usersourcedid, list);
  }
  return studentOrgs;
}

export async function readStudents(
  files: { users?: RecordSource; roles?: RecordSource; enrollments?: RecordSource },
  catalogue: Catalogue,
  mapping: OneRosterMapping,
  /** OneRoster 1.1: users carry `role` and `orgSourcedIds`; 1.2: roles are their own records. */
  rolesInUsers: boolean,
): Promise<Students> {
  const studentRoles = mapping.studentRoles.map((r) => r.toLowerCase());
  const studentOrgs = files.users ? await studentOrgsOf(rolesInUsers, files.roles, studentRoles) : undefined;
  const cohorts = [
    ...new Set([...mapping.cohortForOrg.values(), ...(mapping.cohort ? [mapping.cohort] : [])]),
  ];
  const cohortOf = (orgIds: string[]) => {
    for (const id of orgIds) {
      const c = mapping.cohortForOrg.get(id);
      if (c) return c;
    }
    return mapping.cohort;
  };
  // When students are keyed by something else than their sourcedId, enrolments need the map.
  const studentKeys = mapping.studentId === 'sourcedId' ? undefined : new Map<string, string>();
  let tobedeleted = 0;
  const { orgs, classes } = catalogue;

  async function* users(cohortId: string): AsyncGenerator<Item> {
    for await (const { origin, rec } of files.users!()) {
      let orgIds: string[];
      if (studentOrgs) {
        const found = studentOrgs.get(rec.sourcedid);
        if (!found) continue;
        orgIds = found.length ? found : [rec.primaryorgsourcedid ?? ''].filter(Boolean);
      } else {
        if (!studentRoles.includes((rec.role ?? '').toLowerCase())) continue;
        orgIds = (rec.orgsourcedids ?? '')
          .split(',')
          .map((o) => o.trim())
          .filter(Boolean);
      }
      const target = cohortOf(orgIds);
      if (target !== cohortId) {
        if (target === undefined && cohortId === cohorts[0]) {
          yield {
            origin,
            problem: {
              code: 'no_cohort',
              message: `student ${rec.sourcedid} belongs to no org given a cohort by --cohort-for, and no --cohort was given`,
            },
          };
        }
        continue;
      }
      const key = mapping.studentId === 'sourcedId' ? rec.sourcedid : rec[mapping.studentId.toLowerCase()];
      if (studentKeys && key) studentKeys.set(rec.sourcedid, key);
      if (deleted(rec)) {
        // Never deleted: left out of the push, so a full sync departs the student.
        tobedeleted++;
        continue;
      }
      const program = orgIds.map((o) => orgs.get(o)).find((o) => o?.kind === 'program');
      const campus = orgIds.map((o) => orgs.get(o)).find((o) => o?.kind === 'campus');
      yield {
        origin,
        row: {
          email: rec.email,
          student_id_ext: key,
          first_name: rec.preferredgivenname || rec.givenname,
          last_name: rec.preferredfamilyname || rec.familyname,
          ...(program ? { program_code: program.key } : {}),
          ...(campus ? { campus_name: campus.key } : {}),
        },
      };
    }
  }

  async function* enrolments(): AsyncGenerator<Item> {
    for await (const { origin, rec } of files.enrollments!()) {
      if (!studentRoles.includes((rec.role ?? '').toLowerCase())) continue;
      const cls = classes.get(rec.classsourcedid);
      const student = studentKeys ? studentKeys.get(rec.usersourcedid) : rec.usersourcedid;
      const missing = !cls
        ? `class ${rec.classsourcedid} is not in classes.csv`
        : !cls.unit
          ? `the course of class ${rec.classsourcedid} is not in courses.csv`
          : !cls.term
            ? `class ${rec.classsourcedid} has no academic session of type ${mapping.termTypes.join(' or ')}`
            : !student
              ? `user ${rec.usersourcedid} is not a student of users.csv`
              : undefined;
      if (missing) {
        yield { origin, problem: { code: 'unmapped', message: missing } };
        continue;
      }
      yield {
        origin,
        row: {
          student_id_ext: student,
          unit_code: cls!.unit,
          term_code: cls!.term,
          // Never deleted: a removed enrolment is withdrawn (docs/enrolments.md).
          status: deleted(rec) ? 'withdrawn' : 'enrolled',
        },
      };
    }
  }

  return {
    cohorts,
    users,
    enrolments,
    get tobedeleted() {
      return tobedeleted;
    },
  };
}
