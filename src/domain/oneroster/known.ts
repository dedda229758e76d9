// What earlier pushes (or pulls) placed, so a delta never drops a change. A delta carries only
// changed records: a user whose name changed comes without their unchanged roles record, a new
// student names orgs the delta does not carry, an enrollment names a class (or a class a
// course) the delta does not carry, and an enrollment that moved or left must withdraw what it
// placed before. The mapping looks what the delta omits up here: which users were students
// (with their key and orgs), which were not, what each org became, where each class and course
// led, and what each enrollment placed. The service keeps it per institution (table
// oneroster_memory, memory.ts), for pulls and pushes alike; `ssp push oneroster` still reads a
// local file written by earlier versions (docs/versioning.md).

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
  readonly students: Map<string, string[]>;
  readonly others: Set<string>;
  readonly classes: Map<string, [string, string]>;
  readonly courses: Map<string, string>;
  readonly orgs: Map<string, [OrgKind, string]>;
  readonly enrollments: Map<string, [string, string, string]>;
  /** Entries changed by this push (kind \0 sourcedId), for the service to store only those. */
  private readonly changed = new Set<string>();

  constructor(previous: Known | undefined) {
    const p = previous ?? emptyKnown();
    this.students = new Map(Object.entries(p.students));
    this.others = new Set(p.others);
    this.classes = new Map(Object.entries(p.classes));
    this.courses = new Map(Object.entries(p.courses));
    this.orgs = new Map(Object.entries(p.orgs));
    this.enrollments = new Map(Object.entries(p.enrollments));
  }

  private mark(kind: KnownKind, sourcedId: string): void {
    this.changed.add(`${kind}\u0000${sourcedId}`);
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

  /** What an enrollment placed now (null: it placed nothing any more, withdrawn). */
  enrollment(sourcedId: string, placed: [string, string, string] | null): void {
    const before = this.enrollments.get(sourcedId);
    if (!placed) {
      if (!before) return;
      this.enrollments.delete(sourcedId);
    } else {
      if (before?.every((v, i) => v === placed[i])) return;
      this.enrollments.set(sourcedId, placed);
    }
    this.mark('enrollment', sourcedId);
  }

  result(): Known {
    return {
      version: 2,
      students: Object.fromEntries(this.students),
      others: [...this.others],
      classes: Object.fromEntries(this.classes),
      courses: Object.fromEntries(this.courses),
      orgs: Object.fromEntries(this.orgs),
      enrollments: Object.fromEntries(this.enrollments),
    };
  }

  /** The entries this push changed, as the service stores them (memory.ts). */
  *changes(): Generator<KnownChange> {
    for (const entry of this.changed) {
      const at = entry.indexOf('\u0000');
      const kind = entry.slice(0, at) as KnownKind;
      const sourcedId = entry.slice(at + 1);
      yield this.entry(kind, sourcedId);
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
    const e = this.enrollments.get(sourcedId);
    return of(e ? { student: e[0], unit: e[1], term: e[2] } : null, e?.[0] ?? null);
  }
}
