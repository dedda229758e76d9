// OneRoster data (a CSV bundle's files, or a REST API's collections) mapped onto the feeds'
// sections, in the spec's dependency order: programs and campuses (orgs), the calendar
// (academicSessions), units (courses), the roster (users, with roles in 1.2), then enrolments
// (enrollments, through classes). Used by `ssp push oneroster` and by the service's pull, so
// both map the same way (docs/oneroster.md).
import { readCatalogue } from './catalogue.ts';
import type { Placements } from './enrolments.ts';
import { type Known, type KnownChange, KnownUpdate } from './known.ts';
import type { OneRosterMapping } from './mapping.ts';
import type { Collection, Mapped, RecordSource } from './records.ts';
import { readStudents } from './students.ts';

export interface MappedOneRoster {
  programs: Mapped[];
  campuses: Mapped[];
  terms: Mapped[];
  units: Mapped[];
  /** Cohorts that receive students; users(cohort) streams the roster rows of one. */
  cohorts: string[];
  /** With fullSync, students without an email are named, not departed (students.ts, namingRows()). */
  users(cohortId: string, options?: { fullSync?: boolean }): AsyncGenerator<Mapped>;
  enrolments(): AsyncGenerator<Mapped>;
  /** What was left out, counted; complete once every section has been read. */
  notes(): string[];
  /** The memory for the next delta (known.ts); complete once every section has been read. */
  known(): Known;
  /** What this push changed in the memory (for the service to store only that). */
  changes(): Iterable<KnownChange>;
}

export interface MapOptions {
  /** OneRoster 1.1 (role and orgs in users) or 1.2 (roles records). */
  rolesInUsers: boolean;
  /** The roles are all of them (bulk; an API's users), not only changed ones (a delta). */
  rolesComplete: boolean;
  /** What earlier pushes said, for what a delta omits (already in maps: used as it is). */
  known?: Known | KnownUpdate;
  /** Where what enrollments placed is read and written (enrolments.ts; the memory's map when left out). */
  placements?: Placements;
}

export async function mapOneRoster(
  sources: Partial<Record<Collection, RecordSource>>,
  mapping: OneRosterMapping,
  options: MapOptions,
): Promise<MappedOneRoster> {
  const known = options.known instanceof KnownUpdate ? options.known : new KnownUpdate(options.known);
  const skipped = new Map<string, number>();
  const skip = (what: string) => skipped.set(what, (skipped.get(what) ?? 0) + 1);
  const catalogue = await readCatalogue(
    {
      orgs: sources.orgs,
      academicSessions: sources.academicSessions,
      courses: sources.courses,
      classes: sources.classes,
      users: sources.users,
    },
    mapping,
    known,
    skip,
  );
  const students = await readStudents(
    { users: sources.users, roles: sources.roles, enrollments: sources.enrollments },
    catalogue,
    mapping,
    {
      rolesInUsers: options.rolesInUsers,
      rolesComplete: options.rolesComplete,
      known,
      placements: options.placements,
    },
  );
  return {
    programs: catalogue.programItems,
    campuses: catalogue.campusItems,
    terms: catalogue.termItems,
    units: catalogue.unitItems,
    cohorts: students.cohorts,
    users: students.users,
    enrolments: students.enrolments,
    notes() {
      const out: string[] = [];
      for (const [what, count] of skipped) out.push(`${count} ${what}`);
      if (
        mapping.programsFrom === 'orgs' &&
        sources.orgs &&
        !catalogue.programItems.length &&
        [...catalogue.orgs.values()].every((o) => o.kind !== 'program')
      ) {
        out.push(
          `no org is of type ${mapping.programOrgTypes.join(' or ')}: no programs were pushed ` +
            "(K-12 exports seldom have departments; programs can come from the students' grades)",
        );
      }
      out.push(...students.notes());
      return out;
    },
    known: () => known.result(),
    changes: () => known.changes(),
  };
}
