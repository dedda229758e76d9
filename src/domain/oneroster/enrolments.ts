// Enrollments of students as enrolment rows, streamed after the roster (whose keys they use).
// Two classes of one course and term (an old section tobedeleted, a new one active) name the
// same enrolment: enrolled wins over withdrawn whatever the order of the records, and a repeat
// of the same enrolment is sent once. Withdrawals are held to the end to know; the keys of the
// enrolments sent are held too (about 60 bytes an enrolment).
import type { ClassPlace } from './catalogue.ts';
import type { KnownUpdate } from './known.ts';
import type { OneRosterMapping } from './mapping.ts';
import { deleted, type Mapped as Item, type RecordSource } from './records.ts';

export interface EnrolmentContext {
  classes: Map<string, ClassPlace>;
  known: KnownUpdate;
  /** Student user sourcedId -> student_id_ext, from the users read. */
  studentKeys: Map<string, string>;
  /** Students left out for want of an email. */
  withoutEmail: Map<string, string>;
  studentRoles: string[];
  mapping: OneRosterMapping;
  counts: { repeats: number; merged: number; withoutEmail: number };
}

export async function* readEnrolments(
  enrollments: RecordSource,
  ctx: EnrolmentContext,
): AsyncGenerator<Item> {
  const { classes, known, studentKeys, withoutEmail, studentRoles, mapping, counts } = ctx;
  const fromKnown = (classId: string): ClassPlace | undefined => {
    const place = known.classes.get(classId);
    return place ? { unit: place[0], term: place[1], deleted: false } : undefined;
  };
  const enrolled = new Set<string>();
  const withdrawn = new Map<string, Item>();
  for await (const { origin, rec } of enrollments()) {
    if (!studentRoles.includes((rec.role ?? '').toLowerCase())) continue;
    if (withoutEmail.has(rec.usersourcedid)) {
      counts.withoutEmail++;
      continue;
    }
    const cls = classes.get(rec.classsourcedid) ?? fromKnown(rec.classsourcedid);
    const student =
      studentKeys.get(rec.usersourcedid) ??
      known.students.get(rec.usersourcedid)?.[0] ??
      (mapping.studentId === 'sourcedId' ? rec.usersourcedid : undefined);
    const missing = !cls
      ? `class ${rec.classsourcedid} is neither in this export's classes nor known from an earlier push`
      : !cls.unit
        ? `the course of class ${rec.classsourcedid} is neither in this export's courses nor known from an earlier push`
        : !cls.term
          ? `class ${rec.classsourcedid} has no academic session`
          : !student
            ? `user ${rec.usersourcedid} is not a student of this export nor of an earlier push`
            : undefined;
    if (missing) {
      yield { origin, problem: { code: 'unmapped', message: missing } };
      continue;
    }
    const row = {
      student_id_ext: student,
      unit_code: cls!.unit,
      term_code: cls!.term,
      // Never deleted: a removed enrolment is withdrawn (docs/enrolments.md).
      status: deleted(rec) || cls!.deleted ? 'withdrawn' : 'enrolled',
    };
    const key = `${student}\u0000${cls!.unit}\u0000${cls!.term}`;
    if (row.status === 'withdrawn') {
      if (withdrawn.has(key)) counts.repeats++;
      else withdrawn.set(key, { origin, row });
      continue;
    }
    if (enrolled.has(key)) {
      counts.repeats++;
      continue;
    }
    enrolled.add(key);
    yield { origin, row };
  }
  for (const [key, item] of withdrawn) {
    if (enrolled.has(key)) counts.merged++;
    else yield item;
  }
}
