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
  const lower = (xs: string[]) => xs.map((x) => x.toLowerCase());
  const campusTypes = lower(mapping.campusOrgTypes);
  const programTypes = mapping.programsFrom === 'orgs' ? lower(mapping.programOrgTypes) : [];
  const termTypes = lower(mapping.termTypes);
  const catalogue: Catalogue = {
    orgs: new Map(),
    classes: new Map(),
    programItems: [],
    campusItems: [],
    termItems: [],
    unitItems: [],
    gradePrograms: mapping.programsFrom === 'grades',
  };

  // orgs -> programs and campuses
  if (files.orgs) {
    for await (const { origin, rec } of files.orgs()) {
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
  if (mapping.programsFrom === 'grades' && files.users) {
    // The grades students carry, read once more from the users (a dozen values).
    const grades = new Map<string, Item>();
    for await (const { origin, rec } of files.users()) {
      const code = gradeProgram(rec.grades);
      if (code && !deleted(rec) && !grades.has(code)) {
        grades.set(code, { origin, row: { program_code: code, name: `Grade ${code.slice(6)}` } });
      }
    }
    catalogue.programItems.push(...grades.values());
  }

  // academicSessions -> terms
  const sessions = new Map<string, { term: boolean; parent: string; item?: Item; deleted: boolean }>();
  if (files.academicSessions) {
    for await (const { origin, rec } of files.academicSessions()) {
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
  }

  // courses -> units
  if (files.courses) {
    for await (const { origin, rec } of files.courses()) {
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

  // classes: class -> unit and term, for enrolments
  if (files.classes) {
    const yearTerms = new Set<string>();
    for await (const { rec } of files.classes()) {
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
  return catalogue;
}
