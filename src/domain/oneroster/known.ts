// What earlier pushes (or pulls) said, so a delta never drops a change. A delta carries only
// changed records: a user whose name changed comes without their unchanged roles record, an
// enrollment names a class (or a class a course) the delta does not carry. The mapping looks
// what the delta omits up here: which users were students (with their key and orgs), which were
// not, and where each class and course led. `ssp push oneroster` keeps it in a file beside the
// resume state, a OneRoster source in its row; each push or pull updates it.

export interface Known {
  version: 1;
  /** Student user sourcedId -> [student_id_ext, ...org sourcedIds]. */
  students: Record<string, string[]>;
  /** sourcedIds of users known to hold no student role (teachers, guardians …). */
  others: string[];
  /** Class sourcedId -> [unit_code, term_code]. */
  classes: Record<string, [string, string]>;
  /** Course sourcedId -> unit_code. */
  courses: Record<string, string>;
}

export function emptyKnown(): Known {
  return { version: 1, students: {}, others: [], classes: {}, courses: {} };
}

/** A stored memory, or an empty one when it is missing or of another shape. */
export function parseKnown(value: unknown): Known {
  const v = value as Partial<Known> | null;
  if (v?.version !== 1 || typeof v.students !== 'object' || !Array.isArray(v.others)) return emptyKnown();
  return {
    version: 1,
    students: v.students,
    others: v.others,
    classes: v.classes ?? {},
    courses: v.courses ?? {},
  };
}

/** The memory being updated by one push: starts from the last one, changed as records are read. */
export class KnownUpdate {
  readonly students: Map<string, string[]>;
  readonly others: Set<string>;
  readonly classes: Map<string, [string, string]>;
  readonly courses: Map<string, string>;

  constructor(previous: Known | undefined) {
    const p = previous ?? emptyKnown();
    this.students = new Map(Object.entries(p.students));
    this.others = new Set(p.others);
    this.classes = new Map(Object.entries(p.classes));
    this.courses = new Map(Object.entries(p.courses));
  }

  student(sourcedId: string, key: string, orgs: string[]): void {
    this.students.set(sourcedId, [key, ...orgs]);
    this.others.delete(sourcedId);
  }

  other(sourcedId: string): void {
    this.others.add(sourcedId);
    this.students.delete(sourcedId);
  }

  forget(sourcedId: string): void {
    this.students.delete(sourcedId);
    this.others.delete(sourcedId);
  }

  result(): Known {
    return {
      version: 1,
      students: Object.fromEntries(this.students),
      others: [...this.others],
      classes: Object.fromEntries(this.classes),
      courses: Object.fromEntries(this.courses),
    };
  }
}
