// The students and their enrolments, streamed: users become the roster (once per cohort),
// enrollments the enrolments, each read when its section's turn comes. What grows with the
// student count: the students' roles of 1.2 data (roles joined to users), the memory of earlier
// pushes (known.ts, whose map of students also gives the enrolments each student's key), and
// the enrolment keys that make two classes of one course and term give one answer whatever
// their order.
//
// Nothing disappears: every user and enrollment is pushed, rejected with its origin, or
// counted in a note (notes()).

import type { PackedMap } from '../../lib/packed-map.ts';
import { type Catalogue, gradeProgram, orgOf } from './catalogue.ts';
import { type Placements, readEnrolments } from './enrolments.ts';
import type { KnownUpdate } from './known.ts';
import type { OneRosterMapping } from './mapping.ts';
import { deleted, type Mapped as Item, type Origin, type Rec, type RecordSource } from './records.ts';
import { placeOfUser, rolesOf } from './roles.ts';

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
    /** Where what enrollments placed is read and written (the memory's map when left out). */
    placements?: Placements;
  },
): Promise<Students> {
  const { rolesInUsers, rolesComplete, known } = options;
  const studentRoles = mapping.studentRoles.map((r) => r.toLowerCase());
  if (files.users && !rolesInUsers && !files.roles) {
    throw new Error('OneRoster 1.2 users need their roles: cannot tell which users are students');
  }
  const read: Reading = {
    files,
    catalogue,
    classes: catalogue.classes,
    mapping,
    studentRoles,
    rolesComplete,
    known,
    placements: options.placements,
    // Read for the roster only: released when the enrollments are read (enrolmentsOf()).
    roles: files.users && !rolesInUsers ? await rolesOf(files.roles!, studentRoles) : undefined,
    rolesReleased: false,
    cohorts: [...new Set([...mapping.cohortForOrg.values(), ...(mapping.cohort ? [mapping.cohort] : [])])],
    deletedKeys: new Map(),
    tobedeleted: 0,
    others: 0,
    idFallbacks: 0,
    named: 0,
    noEmail: new Group(),
    withoutEmail: new Map(),
    counts: { repeats: 0, merged: 0, withoutEmail: 0, moved: 0 },
  };
  return {
    cohorts: read.cohorts,
    users: (cohortId, options) => rosterOf(read, cohortId, options),
    enrolments: () => enrolmentsOf(read),
    notes: () =>
      studentNotes({
        tobedeleted: read.tobedeleted,
        others: read.others,
        idFallbacks: read.idFallbacks,
        named: read.named,
        ...read.counts,
      }),
    get tobedeleted() {
      return read.tobedeleted;
    },
  };
}

/**
 * One reading of the students: what it was given, and what the roster gathers for the
 * enrolments and the notes. One object for the whole reading, so the per-user steps take it
 * whole and nothing is allocated for them per record.
 */
interface Reading {
  readonly files: { users?: RecordSource; roles?: RecordSource; enrollments?: RecordSource };
  readonly catalogue: Catalogue;
  readonly classes: Catalogue['classes'];
  readonly mapping: OneRosterMapping;
  readonly studentRoles: string[];
  readonly rolesComplete: boolean;
  readonly known: KnownUpdate;
  readonly placements: Placements | undefined;
  /** The users' roles of 1.2 data (rolesOf()); undefined in 1.1 data, and once released. */
  roles: PackedMap | undefined;
  rolesReleased: boolean;
  readonly cohorts: string[];
  /** Keys of students left out as tobedeleted (the memory forgets them): others' are known.students'. */
  readonly deletedKeys: Map<string, string>;
  tobedeleted: number;
  others: number;
  idFallbacks: number;
  /** Students without an email a full sync named (namingRows()). */
  named: number;
  readonly noEmail: Group;
  /** Students not pushed for want of an email: their enrollments are left out too, counted. */
  readonly withoutEmail: Map<string, string>;
  readonly counts: { repeats: number; merged: number; withoutEmail: number; moved: number };
}

/** The cohort of a student in these orgs: the first given one by --cohort-for, else --cohort. */
function cohortOf(mapping: OneRosterMapping, orgIds: string[]): string | undefined {
  for (const id of orgIds) {
    const c = mapping.cohortForOrg.get(id);
    if (c) return c;
  }
  return mapping.cohort;
}

/** The student's key as the mapping says (studentId); a missing identifier falls back to the sourcedId, counted. */
function keyOf(read: Reading, rec: Rec): string | undefined {
  const { studentId } = read.mapping;
  if (studentId === 'sourcedId') return rec.sourcedid;
  if (studentId === 'username') return rec.username || undefined;
  if (rec.identifier) return rec.identifier;
  read.idFallbacks++;
  return rec.sourcedid;
}

/** The users of one cohort as roster rows (Students.users()). */
async function* rosterOf(
  read: Reading,
  cohortId: string,
  options: { fullSync?: boolean } = {},
): AsyncGenerator<Item> {
  if (read.rolesReleased) throw new Error('the roster is read before the enrolments, never after');
  // Users in no cohort (their problems, the non-students counted) are reported once, with the first.
  const first = cohortId === read.cohorts[0];
  const kept: { origin: Origin; key: string }[] = [];
  for await (const { origin, rec } of read.files.users!()) {
    const item = userItem(read, origin, rec, cohortId, first, kept);
    if (item) yield item;
  }
  yield* noEmailFinding(read.noEmail);
  if (options.fullSync) {
    read.named += kept.length;
    yield* namingRows(kept);
  }
}

/**
 * What one user gives the roster of `cohortId`: a row, a problem, or nothing (not a student,
 * another cohort's, tobedeleted, or without an email: then kept in `kept` to be named).
 */
function userItem(
  read: Reading,
  origin: Origin,
  rec: Rec,
  cohortId: string,
  first: boolean,
  kept: { origin: Origin; key: string }[],
): Item | undefined {
  const { known } = read;
  const place = placeOfUser(rec, read);
  if (place === 'unknown') {
    if (!first) return undefined;
    return {
      origin,
      problem: {
        code: 'role_unknown',
        message:
          `user ${rec.sourcedid} has no roles record here, and no earlier push said whether they are a student: ` +
          'push a bulk export (or their roles) first',
      },
    };
  }
  if (!place.student) {
    if (first) {
      read.others++;
      known.other(rec.sourcedid);
    }
    return undefined;
  }
  const target = cohortOf(read.mapping, place.orgs);
  if (target !== cohortId) {
    if (target !== undefined || !first) return undefined;
    return {
      origin,
      problem: {
        code: 'no_cohort',
        message: `student ${rec.sourcedid} belongs to no org given a cohort by --cohort-for, and no --cohort was given`,
      },
    };
  }
  const key = deleted(rec) ? (known.students.get(rec.sourcedid)?.[0] ?? keyOf(read, rec)) : keyOf(read, rec);
  if (deleted(rec)) {
    // Never deleted: left out of the push, so a full sync departs the student; their
    // enrolments are withdrawn.
    read.tobedeleted++;
    if (key) read.deletedKeys.set(rec.sourcedid, key);
    known.forget(rec.sourcedid);
    return undefined;
  }
  if (!key) {
    return {
      origin,
      problem: { code: 'missing_key', message: `student ${rec.sourcedid} has no ${read.mapping.studentId}` },
    };
  }
  known.student(rec.sourcedid, key, place.orgs);
  if (!rec.email) {
    read.noEmail.add(origin, rec.sourcedid);
    read.withoutEmail.set(rec.sourcedid, key);
    kept.push({ origin, key });
    return undefined;
  }
  return rosterRow(read, origin, rec, key, place.orgs);
}

/** A student's roster row, in their program and campus. */
function rosterRow(read: Reading, origin: Origin, rec: Rec, key: string, orgs: string[]): Item {
  const { catalogue, known } = read;
  // The student's orgs as this data says, else as earlier pushes said: a delta with a new
  // student in an unchanged school does not carry the school.
  const placed = orgs.map((o) => orgOf(catalogue, known, o));
  const program = catalogue.gradePrograms
    ? gradeProgram(rec.grades)
    : placed.find((o) => o?.kind === 'program')?.key;
  const campus = placed.find((o) => o?.kind === 'campus');
  return {
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

// Students without an email (young students often have none) are one finding, not one line each.
function* noEmailFinding(noEmail: Group): Generator<Item> {
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

/** Enrollments of students as enrolment rows (Students.enrolments()); the roles are released first. */
function enrolmentsOf(read: Reading): AsyncGenerator<Item> {
  read.roles = undefined;
  read.rolesReleased = true;
  return readEnrolments(read.files.enrollments!, {
    classes: read.classes,
    known: read.known,
    placements: read.placements,
    deletedKeys: read.deletedKeys,
    withoutEmail: read.withoutEmail,
    studentRoles: read.studentRoles,
    mapping: read.mapping,
    counts: read.counts,
  });
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
