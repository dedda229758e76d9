// What earlier pushes (or pulls) placed, so a delta never drops a change. A delta carries only
// changed records: a user whose name changed comes without their unchanged roles record, a new
// student names orgs the delta does not carry, an enrollment names a class (or a class a
// course) the delta does not carry, and an enrollment that moved or left must withdraw what it
// placed before. The mapping looks what the delta omits up here: which users were students
// (with their key and orgs), which were not, what each org became, where each class and course
// led, and what each enrollment placed. The service keeps it per institution (table
// oneroster_memory, memory.ts), for pulls and pushes alike; `ssp push oneroster` still reads a
// local file written by earlier versions (docs/versioning.md).

import { PackedMap } from '../../lib/packed-map.ts';

export type OrgKind = 'campus' | 'program' | 'other';

export interface Known {
  version: 2;
  /** Student user sourcedId -> [student_id_ext, ...org sourcedIds]. */
  students: Record<string, string[]>;
  /** sourcedIds of users known to hold no student role (teachers, guardians …). */
  others: string[];
  /** Class sourcedId -> [unit_code, term_code]. */
  classes: Record<string, [string, string]>;
  /** Course sourcedId -> unit_code. */
  courses: Record<string, string>;
  /** Org sourcedId -> [what it became, its program code or campus name]. */
  orgs: Record<string, [OrgKind, string]>;
  /** Enrollment sourcedId -> [student_id_ext, unit_code, term_code]: the enrolment it placed. */
  enrollments: Record<string, [string, string, string]>;
}

export function emptyKnown(): Known {
  return { version: 2, students: {}, others: [], classes: {}, courses: {}, orgs: {}, enrollments: {} };
}

/** A stored memory (version 1 or 2), or an empty one when it is missing or of another shape. */
export function parseKnown(value: unknown): Known {
  const v = value as (Partial<Omit<Known, 'version'>> & { version?: number }) | null;
  if ((v?.version !== 1 && v?.version !== 2) || typeof v.students !== 'object' || !Array.isArray(v.others))
    return emptyKnown();
  return {
    version: 2,
    students: v.students,
    others: v.others,
    classes: v.classes ?? {},
    courses: v.courses ?? {},
    orgs: v.orgs ?? {},
    enrollments: v.enrollments ?? {},
  };
}

/**
 * An enrolment (student, unit, term) as one string: a key and a value of the maps. Joined, not
 * concatenated: join makes one flat string, `+` a concatenation node pointing at the parts.
 */
export function placement(student: string, unit: string, term: string): string {
  return [student, unit, term].join('\u0000');
}

/** The student, unit and term of a placement(). */
export function placedOf(placement: string): [string, string, string] {
  const [student, unit, term] = placement.split('\u0000');
  return [student, unit, term];
}

/**
 * Student user sourcedId -> [student_id_ext, ...org sourcedIds], packed outside V8's heap
 * (packed-map.ts) as one string joined by NUL, as placement() is: each get() reads a new array,
 * which the caller reads and drops. A Map held an array and its strings for each of 20,000
 * students (some 2.5 MB in the heap).
 */
export class StudentEntries {
  private readonly packed = new PackedMap();

  get size(): number {
    return this.packed.size;
  }

  get(sourcedId: string): string[] | undefined {
    return this.packed.get(sourcedId)?.split('\u0000');
  }

  has(sourcedId: string): boolean {
    return this.packed.has(sourcedId);
  }

  set(sourcedId: string, entry: readonly string[]): void {
    this.packed.set(sourcedId, entry.join('\u0000'));
  }

  delete(sourcedId: string): void {
    this.packed.set(sourcedId, null);
  }

  *entries(): Generator<[string, string[]]> {
    for (const [id, value] of this.packed.entries()) yield [id, value.split('\u0000')];
  }
}

/** The kinds of record the memory holds, as the service stores them. */
export type KnownKind = 'user' | 'class' | 'course' | 'org' | 'enrollment';

/** One changed entry: its new value, or null when it is forgotten. */
export interface KnownChange {
  kind: KnownKind;
  sourcedId: string;
  /** user: {student: key | null, orgs}; class: {unit, term}; course: {unit}; org: {kind, key}; enrollment: {student, unit, term}. */
  data: Record<string, unknown> | null;
  /** The student it names (users that are students, enrollments): personal data. */
  student: string | null;
}

/** The memory being updated by one push: starts from the last one, changed as records are read. */
export class KnownUpdate {
  readonly students = new StudentEntries();
  readonly others: Set<string>;
  readonly classes: Map<string, [string, string]>;
  readonly courses: Map<string, string>;
  readonly orgs: Map<string, [OrgKind, string]>;
  /**
   * Enrollment sourcedId -> the enrolment it placed, as one placement() string, held as bytes
   * outside V8's heap (packed-map.ts): the largest part of the memory (60,000 entries of the
   * benchmark's 80,000), some 6 MB of strings and table in the heap, about 2.5 MB there. What
   * this push changed is marked in it, not in `changed`.
   */
  readonly enrollments = new PackedMap();
  /**
   * Entries changed by this push, for the service to store only those: the sourcedIds of each
   * kind, packed (the values unused; a first push changes every user). Enrollments are marked in
   * their own map instead: their set stays empty, kept for the kind's turn.
   */
  private readonly changed = new Map<KnownKind, PackedMap>();

  constructor(previous: Known | undefined) {
    const p = previous ?? emptyKnown();
    for (const id in p.students) this.students.set(id, p.students[id]);
    this.others = new Set(p.others);
    this.classes = new Map(Object.entries(p.classes));
    this.courses = new Map(Object.entries(p.courses));
    this.orgs = new Map(Object.entries(p.orgs));
    for (const id in p.enrollments) this.enrollments.set(id, placement(...p.enrollments[id]));
  }

  /**
   * One stored entry (memory.ts), put into the maps as it was, not as a change: the push reads
   * the service's memory straight into them, a page at a time, never holding it twice.
   */
  load(kind: KnownKind, sourcedId: string, data: Record<string, unknown>): void {
    const text = (v: unknown) => (typeof v === 'string' ? v : '');
    if (kind === 'user') {
      if (typeof data.student === 'string') {
        const orgs = Array.isArray(data.orgs) ? data.orgs.map(text) : [];
        this.students.set(sourcedId, [data.student, ...orgs]);
      } else this.others.add(sourcedId);
    } else if (kind === 'class') this.classes.set(sourcedId, [text(data.unit), text(data.term)]);
    else if (kind === 'course') this.courses.set(sourcedId, text(data.unit));
    else if (kind === 'org') this.orgs.set(sourcedId, [text(data.kind) as OrgKind, text(data.key)]);
    else this.enrollments.set(sourcedId, placement(text(data.student), text(data.unit), text(data.term)));
  }

  private mark(kind: KnownKind, sourcedId: string | undefined): void {
    const ids = this.changed.get(kind) ?? new PackedMap();
    if (!this.changed.has(kind)) this.changed.set(kind, ids);
    if (sourcedId !== undefined) ids.set(sourcedId, '');
  }

  student(sourcedId: string, key: string, orgs: string[]): void {
    const next = [key, ...orgs];
    const before = this.students.get(sourcedId);
    if (before && before.length === next.length && before.every((v, i) => v === next[i])) return;
    this.students.set(sourcedId, next);
    this.others.delete(sourcedId);
    this.mark('user', sourcedId);
  }

  other(sourcedId: string): void {
    if (this.others.has(sourcedId)) return;
    this.others.add(sourcedId);
    this.students.delete(sourcedId);
    this.mark('user', sourcedId);
  }

  forget(sourcedId: string): void {
    if (!this.students.has(sourcedId) && !this.others.has(sourcedId)) return;
    this.students.delete(sourcedId);
    this.others.delete(sourcedId);
    this.mark('user', sourcedId);
  }

  course(sourcedId: string, unit: string): void {
    if (this.courses.get(sourcedId) === unit) return;
    this.courses.set(sourcedId, unit);
    this.mark('course', sourcedId);
  }

  class(sourcedId: string, unit: string, term: string): void {
    const before = this.classes.get(sourcedId);
    if (before?.[0] === unit && before[1] === term) return;
    this.classes.set(sourcedId, [unit, term]);
    this.mark('class', sourcedId);
  }

  org(sourcedId: string, kind: OrgKind, key: string): void {
    const before = this.orgs.get(sourcedId);
    if (before?.[0] === kind && before[1] === key) return;
    this.orgs.set(sourcedId, [kind, key]);
    this.mark('org', sourcedId);
  }

  /** What an enrollment placed now (a placement(); null: it placed nothing any more, withdrawn). */
  enrollment(sourcedId: string, placed: string | null): void {
    const before = this.enrollments.get(sourcedId);
    if (!placed && before === undefined) return;
    if (placed && before === placed) return;
    this.enrollments.set(sourcedId, placed || null, { mark: true });
    // Only the kind's turn in changes(): the enrollments changed are marked in their map.
    this.mark('enrollment', undefined);
  }

  result(): Known {
    return {
      version: 2,
      students: Object.fromEntries(this.students.entries()),
      others: [...this.others],
      classes: Object.fromEntries(this.classes),
      courses: Object.fromEntries(this.courses),
      orgs: Object.fromEntries(this.orgs),
      enrollments: Object.fromEntries([...this.enrollments.entries()].map(([id, p]) => [id, placedOf(p)])),
    };
  }

  /** The entries this push changed, as the service stores them (memory.ts). */
  *changes(): Generator<KnownChange> {
    for (const [kind, ids] of this.changed) {
      if (kind === 'enrollment') {
        for (const [sourcedId, p] of this.enrollments.marked()) yield enrollmentChange(sourcedId, p);
      } else for (const [sourcedId] of ids.entries()) yield this.entry(kind, sourcedId);
    }
  }

  private entry(kind: KnownKind, sourcedId: string): KnownChange {
    const of = (data: Record<string, unknown> | null, student: string | null = null): KnownChange => ({
      kind,
      sourcedId,
      data,
      student,
    });
    if (kind === 'user') {
      const s = this.students.get(sourcedId);
      if (s) return of({ student: s[0], orgs: s.slice(1) }, s[0]);
      return of(this.others.has(sourcedId) ? { student: null, orgs: [] } : null);
    }
    if (kind === 'class') {
      const c = this.classes.get(sourcedId);
      return of(c ? { unit: c[0], term: c[1] } : null);
    }
    if (kind === 'course') {
      const unit = this.courses.get(sourcedId);
      return of(unit === undefined ? null : { unit });
    }
    if (kind === 'org') {
      const o = this.orgs.get(sourcedId);
      return of(o ? { kind: o[0], key: o[1] } : null);
    }
    return enrollmentChange(sourcedId, this.enrollments.get(sourcedId) ?? null);
  }
}

function enrollmentChange(sourcedId: string, placed: string | null): KnownChange {
  const e = placed === null ? undefined : placedOf(placed);
  return {
    kind: 'enrollment',
    sourcedId,
    data: e ? { student: e[0], unit: e[1], term: e[2] } : null,
    student: e?.[0] ?? null,
  };
}
