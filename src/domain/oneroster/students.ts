// The students and their enrolments, streamed: users become the roster (once per cohort),
// enrollments the enrolments, each read when its section's turn comes. What grows with the
// student count: the students' roles of 1.2 data (roles joined to users), the memory of earlier
// pushes (known.ts, whose map of students also gives the enrolments each student's key), and
// the enrolment keys that make two classes of one course and term give one answer whatever
// their order.
//
// Nothing disappears: every user and enrollment is pushed, rejected with its origin, or
// counted in a note (notes()).

import { PackedMap } from '../../lib/packed-map.ts';
import { type Catalogue, gradeProgram, orgOf } from './catalogue.ts';
import { readEnrolments } from './enrolments.ts';
import type { KnownUpdate } from './known.ts';
import type { OneRosterMapping } from './mapping.ts';
import { deleted, type Mapped as Item, type Origin, type Rec, type RecordSource } from './records.ts';

export interface Students {
  /** The cohorts students go to, the first also taking students placed nowhere (as errors). */
  cohorts: string[];
  /**
   * The users of one cohort as roster rows; in a full sync (`fullSync`), followed by a naming
   * row for each student left out for want of an email (namingRows()).
   */
  users(cohortId: string, options?: { fullSync?: boolean }): AsyncGenerator<Item>;
  /** Enrollments of students as enrolment rows (read after the roster, whose keys they use). */
  enrolments(): AsyncGenerator<Item>;
  /** What was left out, counted (tobedeleted students, non-students, merged withdrawals …). */
  notes(): string[];
  /** Students marked tobedeleted, left out of the push. */
  readonly tobedeleted: number;
}

/**
 * The rule for students without an email in a full sync (docs/oneroster.md), for `ssp push
 * oneroster --full-sync` and a full pull alike: the roster cannot import them (it needs an
 * email), but the SIS still lists them, so they must not depart. The sync names each of them
 * with a row carrying only its student id: the feed rejects the row (no email) yet counts it
 * as naming the student, as it does any row it rejects (docs/departures-and-history.md).
 * Such a row is marked `namesOnly`: its rejection is expected, already reported as the
 * `no_email` finding, and not counted again.
 */
export function namingRows(keptOut: { origin: Origin; key: string }[]): Item[] {
  return keptOut.map(({ origin, key }) => ({ origin, row: { student_id_ext: key }, namesOnly: true }));
}

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
async function rolesOf(roles: RecordSource, studentRoles: string[]): Promise<PackedMap> {
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

const SHOWN = 5;

/** A count with its first few sourcedIds, reported as one finding. */
class Group {
  count = 0;
  first: Origin | undefined;
  ids: string[] = [];
  add(origin: Origin, id: string): void {
    this.count++;
    this.first ??= origin;
    if (this.ids.length < SHOWN) this.ids.push(id);
  }
  list(): string {
    return `${this.ids.join(', ')}${this.count > this.ids.length ? ', …' : ''}`;
  }
}

/** Is the user a student, and in which orgs; `unknown` when a delta omits their roles and no push said. */
function placeOfUser(
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

export async function readStudents(
  files: { users?: RecordSource; roles?: RecordSource; enrollments?: RecordSource },
  catalogue: Catalogue,
  mapping: OneRosterMapping,
  options: {
    /** OneRoster 1.1: users carry `role` and `orgSourcedIds`; 1.2: roles are their own records. */
    rolesInUsers: boolean;
    /** The roles are every role (bulk), not only changed ones (delta). */
    rolesComplete: boolean;
    known: KnownUpdate;
  },
): Promise<Students> {
  const { rolesInUsers, rolesComplete, known } = options;
  const studentRoles = mapping.studentRoles.map((r) => r.toLowerCase());
  if (files.users && !rolesInUsers && !files.roles) {
    throw new Error('OneRoster 1.2 users need their roles: cannot tell which users are students');
  }
  // Read for the roster only: released when the enrollments are read (enrolments()).
  let roles = files.users && !rolesInUsers ? await rolesOf(files.roles!, studentRoles) : undefined;
  let rolesReleased = false;
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
  // Keys of students left out as tobedeleted (the memory forgets them): others' are known.students'.
  const deletedKeys = new Map<string, string>();
  let tobedeleted = 0;
  let others = 0;
  let idFallbacks = 0;
  /** Students without an email a full sync named (namingRows()). */
  let named = 0;
  const noEmail = new Group();
  /** Students not pushed for want of an email: their enrollments are left out too, counted. */
  const withoutEmail = new Map<string, string>();
  const { classes } = catalogue;

  const placeOf = (rec: Rec) => placeOfUser(rec, { roles, studentRoles, rolesComplete, known });

  const keyOf = (rec: Rec): string | undefined => {
    if (mapping.studentId === 'sourcedId') return rec.sourcedid;
    if (mapping.studentId === 'username') return rec.username || undefined;
    if (rec.identifier) return rec.identifier;
    idFallbacks++;
    return rec.sourcedid;
  };

  async function* users(cohortId: string, options: { fullSync?: boolean } = {}): AsyncGenerator<Item> {
    if (rolesReleased) throw new Error('the roster is read before the enrolments, never after');
    const first = cohortId === cohorts[0];
    const kept: { origin: Origin; key: string }[] = [];
    for await (const { origin, rec } of files.users!()) {
      const place = placeOf(rec);
      if (place === 'unknown') {
        if (first) {
          yield {
            origin,
            problem: {
              code: 'role_unknown',
              message:
                `user ${rec.sourcedid} has no roles record here, and no earlier push said whether they are a student: ` +
                'push a bulk export (or their roles) first',
            },
          };
        }
        continue;
      }
      if (!place.student) {
        if (first) {
          others++;
          known.other(rec.sourcedid);
        }
        continue;
      }
      const target = cohortOf(place.orgs);
      if (target !== cohortId) {
        if (target === undefined && first) {
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
      const key = deleted(rec) ? (known.students.get(rec.sourcedid)?.[0] ?? keyOf(rec)) : keyOf(rec);
      if (deleted(rec)) {
        // Never deleted: left out of the push, so a full sync departs the student; their
        // enrolments are withdrawn.
        tobedeleted++;
        if (key) deletedKeys.set(rec.sourcedid, key);
        known.forget(rec.sourcedid);
        continue;
      }
      if (!key) {
        yield {
          origin,
          problem: { code: 'missing_key', message: `student ${rec.sourcedid} has no ${mapping.studentId}` },
        };
        continue;
      }
      known.student(rec.sourcedid, key, place.orgs);
      if (!rec.email) {
        noEmail.add(origin, rec.sourcedid);
        withoutEmail.set(rec.sourcedid, key);
        kept.push({ origin, key });
        continue;
      }
      // The student's orgs as this data says, else as earlier pushes said: a delta with a new
      // student in an unchanged school does not carry the school.
      const placed = place.orgs.map((o) => orgOf(catalogue, known, o));
      const program = catalogue.gradePrograms
        ? gradeProgram(rec.grades)
        : placed.find((o) => o?.kind === 'program')?.key;
      const campus = placed.find((o) => o?.kind === 'campus');
      yield {
        origin,
        row: {
          email: rec.email,
          student_id_ext: key,
          first_name: rec.preferredgivenname || rec.givenname,
          last_name: rec.preferredfamilyname || rec.familyname,
          ...(program ? { program_code: program } : {}),
          ...(campus ? { campus_name: campus.key } : {}),
        },
      };
    }
    yield* noEmailFinding();
    if (options.fullSync) {
      named += kept.length;
      yield* namingRows(kept);
    }
  }

  // Students without an email (young students often have none) are one finding, not one line each.
  function* noEmailFinding(): Generator<Item> {
    if (!noEmail.first) return;
    const origin = noEmail.first;
    const count = noEmail.count;
    noEmail.count = 0;
    noEmail.first = undefined;
    yield {
      origin,
      problem: {
        code: 'no_email',
        message: `${count} students have no email (${noEmail.list()}): the roster needs one; they were not pushed`,
      },
    };
    noEmail.ids = [];
  }

  const counts = { repeats: 0, merged: 0, withoutEmail: 0, moved: 0 };
  const enrolments = () => {
    roles = undefined;
    rolesReleased = true;
    return readEnrolments(files.enrollments!, {
      classes,
      known,
      deletedKeys,
      withoutEmail,
      studentRoles,
      mapping,
      counts,
    });
  };

  return {
    cohorts,
    users,
    enrolments,
    notes: () => studentNotes({ tobedeleted, others, idFallbacks, named, ...counts }),
    get tobedeleted() {
      return tobedeleted;
    },
  };
}

/** What was left out of the students and their enrolments, counted (notes()). */
function studentNotes(c: {
  tobedeleted: number;
  others: number;
  idFallbacks: number;
  named: number;
  withoutEmail: number;
  repeats: number;
  merged: number;
  moved: number;
}): string[] {
  const out: string[] = [];
  if (c.tobedeleted) {
    out.push(
      `${c.tobedeleted} students marked tobedeleted were not pushed (nothing is deleted; ` +
        'a bulk export pushed with --full-sync, or a full pull, marks them departed)',
    );
  }
  if (c.others) out.push(`${c.others} users hold no student role (teachers, guardians …): not pushed`);
  if (c.idFallbacks) {
    out.push(`${c.idFallbacks} students have no identifier: their sourcedId is their student id`);
  }
  if (c.named) {
    out.push(
      `${c.named} students without an email were named in the full sync, so they do not depart ` +
        '(they are left as they are; the feed records each as a row without email)',
    );
  }
  if (c.withoutEmail) {
    out.push(`${c.withoutEmail} enrollments of students without an email were not pushed`);
  }
  if (c.repeats) {
    out.push(
      `${c.repeats} enrollments repeat a student's unit and term (another class of the same course and term): sent once`,
    );
  }
  if (c.moved) {
    out.push(
      `${c.moved} enrollments moved to another class of another unit or term: their earlier enrolment was withdrawn`,
    );
  }
  if (c.merged) {
    out.push(
      `${c.merged} withdrawals not sent: the student is enrolled in another class of the same course and term`,
    );
  }
  return out;
}
