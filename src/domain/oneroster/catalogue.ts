// The reference data of a OneRoster bundle, read first and held (an institution has thousands
// of orgs, sessions, courses and classes, not millions): orgs become programs and campuses,
// academic sessions terms, courses units; classes are kept to place enrolments in a unit and
// a term.
import type { OneRosterMapping } from './mapping.ts';
import { date, deleted, type Mapped as Item, type RecordSource } from './records.ts';

export interface Org {
  kind: 'campus' | 'program' | 'other';
  /** The program code or the campus name. */
  key: string;
  line: number;
}

export interface Catalogue {
  orgs: Map<string, Org>;
  classes: Map<string, { unit?: string; term?: string }>;
  programItems: Item[];
  campusItems: Item[];
  termItems: Item[];
  unitItems: Item[];
}

export interface CatalogueFiles {
  orgs?: RecordSource;
  academicSessions?: RecordSource;
  courses?: RecordSource;
  classes?: RecordSource;
}

/** Reads the bundle's reference files; `skip` counts rows left out, for the report's notes. */
export async function readCatalogue(
  files: CatalogueFiles,
  mapping: OneRosterMapping,
  skip: (what: string) => void,
): Promise<Catalogue> {
  const lower = (xs: string[]) => xs.map((x) => x.toLowerCase());
  const campusTypes = lower(mapping.campusOrgTypes);
  const programTypes = lower(mapping.programOrgTypes);
  const termTypes = lower(mapping.termTypes);
  const catalogue: Catalogue = {
    orgs: new Map(),
    classes: new Map(),
    programItems: [],
    campusItems: [],
    termItems: [],
    unitItems: [],
  };

  // orgs -> programs and campuses
  if (files.orgs) {
    for await (const { origin, rec } of files.orgs()) {
      const type = (rec.type ?? '').toLowerCase();
      const kind = campusTypes.includes(type) ? 'campus' : programTypes.includes(type) ? 'program' : 'other';
      const key = kind === 'program' ? rec.identifier || rec.sourcedid : rec.name;
      catalogue.orgs.set(rec.sourcedid, { kind, key, line: origin.line });
      if (deleted(rec)) {
        if (kind !== 'other') skip(`orgs marked tobedeleted (kept in the service)`);
        continue;
      }
      if (kind === 'campus') catalogue.campusItems.push({ origin, row: { name: rec.name } });
      if (kind === 'program')
        catalogue.programItems.push({ origin, row: { program_code: key, name: rec.name } });
    }
  }

  // academicSessions -> terms
  const sessions = new Map<string, { term: boolean; parent: string }>();
  if (files.academicSessions) {
    for await (const { origin, rec } of files.academicSessions()) {
      const term = termTypes.includes((rec.type ?? '').toLowerCase());
      sessions.set(rec.sourcedid, { term, parent: rec.parentsourcedid ?? '' });
      if (!term) continue;
      if (deleted(rec)) {
        skip('academic sessions marked tobedeleted (kept in the service)');
        continue;
      }
      catalogue.termItems.push({
        origin,
        row: {
          term_code: rec.sourcedid,
          name: rec.title,
          start_date: date(rec.startdate),
          end_date: date(rec.enddate),
        },
      });
    }
  }

  // courses -> units
  const courses = new Map<string, string>();
  if (files.courses) {
    for await (const { origin, rec } of files.courses()) {
      const code = rec.coursecode || rec.sourcedid;
      courses.set(rec.sourcedid, code);
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
    for await (const { rec } of files.classes()) {
      const termIds = (rec.termsourcedids ?? '').split(',').map((t) => t.trim());
      let term = termIds.find((t) => sessions.get(t)?.term);
      if (!term) {
        const parent = termIds.map((t) => sessions.get(t)?.parent).find((p) => p && sessions.get(p)?.term);
        term = parent;
      }
      catalogue.classes.set(rec.sourcedid, { unit: courses.get(rec.coursesourcedid ?? ''), term });
    }
  }
  return catalogue;
}
