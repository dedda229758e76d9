// The reference data, read first and held (an institution has thousands of orgs, sessions,
// courses and classes, not millions): orgs become programs and campuses, academic sessions
// terms, courses units; classes are kept to place enrolments in a unit and a term. What a delta
// omits (a class of an unchanged course, an enrollment in an unchanged class) is looked up in
// the memory of earlier pushes (known.ts).
import type { KnownUpdate } from './known.ts';
import type { OneRosterMapping } from './mapping.ts';
import { date, deleted, type Mapped as Item, type RecordSource } from './records.ts';

export interface Org {
  kind: 'campus' | 'program' | 'other';
  /** The program code or the campus name. */
  key: string;
  line: number;
}

export interface ClassPlace {
  unit?: string;
  term?: string;
  /** The class is tobedeleted: its enrollments are withdrawn. */
  deleted: boolean;
}

export interface Catalogue {
  orgs: Map<string, Org>;
  classes: Map<string, ClassPlace>;
  programItems: Item[];
  campusItems: Item[];
  termItems: Item[];
  unitItems: Item[];
  /** The first grade of a student's `grades` is their program (programsFrom `grades`). */
  gradePrograms: boolean;
}

export interface CatalogueFiles {
  orgs?: RecordSource;
  academicSessions?: RecordSource;
  courses?: RecordSource;
  classes?: RecordSource;
  /** Read for the students' grades when programs come from grades. */
  users?: RecordSource;
}

/** An org as this export says, else as an earlier push or pull said (a delta omits unchanged orgs). */
export function orgOf(catalogue: Catalogue, known: KnownUpdate, id: string): Org | undefined {
  const here = catalogue.orgs.get(id);
  if (here) return here;
  const remembered = known.orgs.get(id);
  return remembered ? { kind: remembered[0], key: remembered[1], line: 0 } : undefined;
}

/** The program code of a grade (the CEDS grade levels OneRoster uses: KG, 01 … 13, PS …). */
export function gradeProgram(grades: string | undefined): string | undefined {
  const first = (grades ?? '')
    .split(',')
    .map((g) => g.trim())
    .find(Boolean);
  return first ? `grade-${first}` : undefined;
}

/** Reads the reference collections; `skip` counts records left out, for the report's notes. */
export async function readCatalogue(
  files: CatalogueFiles,
  mapping: OneRosterMapping,
  known: KnownUpdate,
  skip: (what: string) => void,
): Promise<Catalogue> {
  const catalogue: Catalogue = {
    orgs: new Map(),
    classes: new Map(),
    programItems: [],
    campusItems: [],
    termItems: [],
    unitItems: [],
    gradePrograms: mapping.programsFrom === 'grades',
  };
  // In the spec's dependency order: courses name their org, classes their course and sessions.
  if (files.orgs) await readOrgs(files.orgs, catalogue, mapping, known, skip);
  if (mapping.programsFrom === 'grades' && files.users) await readGradePrograms(files.users, catalogue);
  const sessions = files.academicSessions
    ? await readSessions(files.academicSessions, catalogue, mapping, skip)
    : new Map<string, Session>();
  if (files.courses) await readCourses(files.courses, catalogue, known, skip);
  if (files.classes) await readClasses(files.classes, catalogue, sessions, known, skip);
  return catalogue;
}

const lower = (xs: string[]) => xs.map((x) => x.toLowerCase());

/** orgs -> programs and campuses; every org is remembered (a later delta's students name them). */
async function readOrgs(
  orgs: RecordSource,
  catalogue: Catalogue,
  mapping: OneRosterMapping,
  known: KnownUpdate,
  skip: (what: string) => void,
): Promise<void> {
  const campusTypes = lower(mapping.campusOrgTypes);
  const programTypes = mapping.programsFrom === 'orgs' ? lower(mapping.programOrgTypes) : [];
  for await (const { origin, rec } of orgs()) {
    const type = (rec.type ?? '').toLowerCase();
    const kind = campusTypes.includes(type) ? 'campus' : programTypes.includes(type) ? 'program' : 'other';
    const key = kind === 'program' ? rec.identifier || rec.sourcedid : rec.name;
    catalogue.orgs.set(rec.sourcedid, { kind, key, line: origin.line });
    known.org(rec.sourcedid, kind, key);
    if (deleted(rec)) {
      if (kind !== 'other') skip(`orgs marked tobedeleted (kept in the service)`);
      continue;
    }
    if (kind === 'campus') catalogue.campusItems.push({ origin, row: { name: rec.name } });
    if (kind === 'program')
      catalogue.programItems.push({ origin, row: { program_code: key, name: rec.name } });
  }
}

/** Programs from grades (programsFrom `grades`): the grades students carry, read once more from the users (a dozen values). */
async function readGradePrograms(users: RecordSource, catalogue: Catalogue): Promise<void> {
  const grades = new Map<string, Item>();
  for await (const { origin, rec } of users()) {
    const code = gradeProgram(rec.grades);
    if (code && !deleted(rec) && !grades.has(code)) {
      grades.set(code, { origin, row: { program_code: code, name: `Grade ${code.slice(6)}` } });
    }
  }
  catalogue.programItems.push(...grades.values());
}

/** An academic session as the classes need it: is it a term, its parent, and its term row. */
interface Session {
  term: boolean;
  parent: string;
  item?: Item;
  deleted: boolean;
}

/**
 * academicSessions -> terms. Every session is kept (by sourcedId), not only terms: a class may
 * point at a term's parent or only at its schoolYear (readClasses()).
 */
async function readSessions(
  academicSessions: RecordSource,
  catalogue: Catalogue,
  mapping: OneRosterMapping,
  skip: (what: string) => void,
): Promise<Map<string, Session>> {
  const termTypes = lower(mapping.termTypes);
  const sessions = new Map<string, Session>();
  for await (const { origin, rec } of academicSessions()) {
    const term = termTypes.includes((rec.type ?? '').toLowerCase());
    const item = {
      origin,
      row: {
        term_code: rec.sourcedid,
        name: rec.title,
        start_date: date(rec.startdate),
        end_date: date(rec.enddate),
      },
    };
    sessions.set(rec.sourcedid, { term, parent: rec.parentsourcedid ?? '', item, deleted: deleted(rec) });
    if (!term) continue;
    if (deleted(rec)) {
      skip('academic sessions marked tobedeleted (kept in the service)');
      continue;
    }
    catalogue.termItems.push(item);
  }
  return sessions;
}

/** courses -> units (in their org's program or campus); every course's code is remembered. */
async function readCourses(
  courses: RecordSource,
  catalogue: Catalogue,
  known: KnownUpdate,
  skip: (what: string) => void,
): Promise<void> {
  for await (const { origin, rec } of courses()) {
    const code = rec.coursecode || rec.sourcedid;
    known.course(rec.sourcedid, code);
    if (deleted(rec)) {
      skip('courses marked tobedeleted (kept in the service)');
      continue;
    }
    const org = catalogue.orgs.get(rec.orgsourcedid ?? '');
    catalogue.unitItems.push({
      origin,
      row: {
        unit_code: code,
        name: rec.title,
        ...(org?.kind === 'program' ? { program_code: org.key } : {}),
        ...(org?.kind === 'campus' ? { campus_name: org.key } : {}),
      },
    });
  }
}

/** classes: class -> unit and term, for enrolments (a course of this export or an earlier push). */
async function readClasses(
  classes: RecordSource,
  catalogue: Catalogue,
  sessions: Map<string, Session>,
  known: KnownUpdate,
  skip: (what: string) => void,
): Promise<void> {
  const yearTerms = new Set<string>();
  for await (const { rec } of classes()) {
    const termIds = (rec.termsourcedids ?? '')
      .split(',')
      .map((t) => t.trim())
      .filter(Boolean);
    let term = termIds.find((t) => sessions.get(t)?.term);
    term ??= termIds.map((t) => sessions.get(t)?.parent).find((p) => p && sessions.get(p)?.term);
    if (!term) {
      // A year-long class points only at its schoolYear (or another session type): that
      // session is the term. A session the bundle does not carry (a delta) is named as it is:
      // the service knows it from an earlier push, or rejects the enrolment saying so.
      const year = termIds.find((t) => sessions.has(t));
      const session = year ? sessions.get(year) : undefined;
      if (year && session?.item && !session.term && !yearTerms.has(year)) {
        yearTerms.add(year);
        if (!session.deleted) catalogue.termItems.push(session.item);
      }
      term = year ?? termIds[0];
    }
    const unit = known.courses.get(rec.coursesourcedid ?? '');
    catalogue.classes.set(rec.sourcedid, { unit, term, deleted: deleted(rec) });
    if (unit && term) known.class(rec.sourcedid, unit, term);
  }
  if (yearTerms.size) {
    for (let i = 0; i < yearTerms.size; i++)
      skip('academic sessions of another type (a schoolYear) pushed as terms: classes point only at them');
  }
}
