// Enrollments of students as enrolment rows, streamed after the roster (whose keys they use).
// What each enrollment placed is remembered (known.ts): one whose class moved it to another unit
// or term withdraws the old enrolment, and one tobedeleted withdraws what it placed even when
// its class is in no export any more.
// Two classes of one course and term (an old section tobedeleted, a new one active) name the
// same enrolment: enrolled wins over withdrawn whatever the order of the records, and a repeat
// of the same enrolment is sent once. Withdrawals are held to the end to know; the enrolments
// sent are held too, as placement strings packed outside V8's heap (about 30 bytes an
// enrolment for the benchmark's data).
import { PackedMap } from '../../lib/packed-map.ts';
import type { ClassPlace } from './catalogue.ts';
import { type KnownUpdate, placedOf, placement } from './known.ts';
import type { OneRosterMapping } from './mapping.ts';
import { deleted, type Mapped as Item, type Origin, type RecordSource } from './records.ts';

export interface EnrolmentContext {
  classes: Map<string, ClassPlace>;
  known: KnownUpdate;
  /**
   * Student user sourcedId -> student_id_ext of the students the users read left out as
   * tobedeleted (the memory forgot them); the others' keys are the memory's (known.students).
   */
  deletedKeys: Map<string, string>;
  /** Students left out for want of an email. */
  withoutEmail: Map<string, string>;
  studentRoles: string[];
  mapping: OneRosterMapping;
  counts: { repeats: number; merged: number; withoutEmail: number; moved: number };
}

export async function* readEnrolments(
  enrollments: RecordSource,
  ctx: EnrolmentContext,
): AsyncGenerator<Item> {
  const { classes, known, deletedKeys, withoutEmail, studentRoles, mapping, counts } = ctx;
  const fromKnown = (classId: string): ClassPlace | undefined => {
    const place = known.classes.get(classId);
    return place ? { unit: place[0], term: place[1], deleted: false } : undefined;
  };
  // Outside V8's heap, as the memory's enrollments (packed-map.ts): the values are unused.
  const enrolled = new PackedMap();
  const withdrawn = new Map<string, Item>();
  const withdraw = (origin: Origin, key: string) => {
    if (withdrawn.has(key)) counts.repeats++;
    else {
      const [student, unit, term] = placedOf(key);
      withdrawn.set(key, {
        origin,
        row: { student_id_ext: student, unit_code: unit, term_code: term, status: 'withdrawn' },
      });
    }
  };
  for await (const { origin, rec } of enrollments()) {
    if (!studentRoles.includes((rec.role ?? '').toLowerCase())) continue;
    if (withoutEmail.has(rec.usersourcedid)) {
      counts.withoutEmail++;
      continue;
    }
    // What this enrollment placed before: withdrawn when it leaves, or when it moved to another
    // unit or term (its class changed), whether or not its old class is in any export.
    const before = rec.sourcedid ? known.enrollments.get(rec.sourcedid) : undefined;
    if (before && deleted(rec)) {
      withdraw(origin, before);
      known.enrollment(rec.sourcedid, null);
      continue;
    }
    const cls = classes.get(rec.classsourcedid) ?? fromKnown(rec.classsourcedid);
    const student =
      known.students.get(rec.usersourcedid)?.[0] ??
      deletedKeys.get(rec.usersourcedid) ??
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
    const key = placement(student!, cls!.unit!, cls!.term!);
    if (before && before !== key) {
      counts.moved++;
      withdraw(origin, before);
    }
    // Never deleted: a removed enrolment is withdrawn (docs/enrolments.md).
    if (deleted(rec) || cls!.deleted) {
      withdraw(origin, key);
      if (rec.sourcedid) known.enrollment(rec.sourcedid, null);
      continue;
    }
    if (rec.sourcedid) known.enrollment(rec.sourcedid, key);
    if (enrolled.has(key)) {
      counts.repeats++;
      continue;
    }
    enrolled.set(key, '');
    yield {
      origin,
      row: { student_id_ext: student, unit_code: cls!.unit, term_code: cls!.term, status: 'enrolled' },
    };
  }
  for (const [key, item] of withdrawn) {
    if (enrolled.has(key)) counts.merged++;
    else yield item;
  }
}
