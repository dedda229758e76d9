// A OneRoster 1.1 / 1.2 CSV bundle mapped onto the feeds, in the spec's dependency order:
// programs and campuses (orgs), the calendar (academicSessions), units (courses), then the
// roster (users, with roles.csv in 1.2), then enrolments (enrollments, through classes).
// This module reads the manifest and plans the jobs; oneroster-catalogue.ts reads the reference
// files (held), oneroster-students.ts streams users and enrollments. The mapping is in
// docs/ssp-push.md; every choice in it is an option (OneRosterMapping).

import type { Placements } from '../../domain/oneroster/enrolments.ts';
import type { Known, KnownChange, KnownUpdate } from '../../domain/oneroster/known.ts';
import type { OneRosterMapping } from '../../domain/oneroster/mapping.ts';
import { type MappedOneRoster, mapOneRoster } from '../../domain/oneroster/plan.ts';
import type { Bundle } from './bundle.ts';
import { CsvFileError, type CsvReadOptions, type FileSource } from './csv-source.ts';
import {
  checkHeader,
  FILES,
  headerOf,
  type OneRosterFile,
  REQUIRED,
  recordSource,
  records,
} from './oneroster-files.ts';
import type { Item } from './pages.ts';
import type { Section } from './send.ts';

export interface OneRosterJob {
  section: Section;
  stream: string;
  label: string;
  file: string;
  cohortId?: string;
  /** Opened when the section's turn comes, so a file is read once and in order. */
  items: () => AsyncIterable<Item>;
}

export interface OneRosterPlan {
  version: string;
  jobs: OneRosterJob[];
  notes: string[];
  /** Files the manifest marks delta (a full sync needs bulk users). */
  delta: Set<string>;
  /** The memory for the next delta, once every job has run (src/domain/oneroster/known.ts). */
  known(): Known;
  /** What this push changed in the memory, once every job has run (for the service to keep). */
  changes(): Iterable<KnownChange>;
}

/** Reads the manifest, checks the files it lists, and plans the feeds' jobs. */
export async function planOneRoster(
  bundle: Bundle,
  mapping: OneRosterMapping,
  csv: CsvReadOptions,
  known?: Known | KnownUpdate,
  /** A full sync: the roster names students without an email too, so they do not depart. */
  fullSync = false,
  /** Where what enrollments placed is read and written (the memory's map when left out). */
  placements?: Placements,
): Promise<OneRosterPlan> {
  const { version, modes } = await readManifest(bundle, csv);
  const file: FileOf = (name) => {
    const mode = modes.get(name.toLowerCase());
    return mode === 'bulk' || mode === 'delta' ? bundle.file(`${name}.csv`) : undefined;
  };
  const delta = new Set(FILES.filter((f) => modes.get(f.toLowerCase()) === 'delta'));
  // Headers of every listed file are checked before anything is sent.
  for (const name of FILES) {
    const source = file(name);
    if (source) await checkHeader(source, REQUIRED[name], csv);
  }

  const source = (name: OneRosterFile) => {
    const f = file(name);
    return f && recordSource(f, REQUIRED[name], csv);
  };
  const notes: string[] = [];
  const rolesInUsers = await rolesInUsersOf(version, file, csv, notes);
  const mapped = await mapOneRoster(
    {
      orgs: source('orgs'),
      academicSessions: source('academicSessions'),
      courses: source('courses'),
      classes: source('classes'),
      users: source('users'),
      roles: source('roles'),
      enrollments: source('enrollments'),
    },
    mapping,
    { rolesInUsers, rolesComplete: modes.get('roles') !== 'delta', known, placements },
  );
  return {
    version,
    jobs: jobsOf(mapped, file, mapping, fullSync),
    delta,
    get notes() {
      return [...notes, ...mapped.notes()];
    },
    known: () => mapped.known(),
    changes: () => mapped.changes(),
  };
}

/** The bundle's file of a OneRoster collection, if the manifest lists it as bulk or delta. */
type FileOf = (name: OneRosterFile) => FileSource | undefined;

/**
 * manifest.csv: the OneRoster version ('' when not stated) and each file's mode (bulk, delta or
 * absent), keyed by its lower-cased name. A file listed but missing from the bundle is an error.
 */
async function readManifest(
  bundle: Bundle,
  csv: CsvReadOptions,
): Promise<{ version: string; modes: Map<string, string> }> {
  const manifestSource = bundle.file('manifest.csv');
  if (!manifestSource) {
    throw new CsvFileError(
      bundle.name,
      undefined,
      undefined,
      'no manifest.csv: this is not a OneRoster CSV bundle',
    );
  }
  const modes = new Map<string, string>();
  let version = '';
  for await (const { line, rec } of records(manifestSource, ['propertyName', 'value'], csv)) {
    const property = rec.propertyname ?? '';
    const value = (rec.value ?? '').toLowerCase();
    if (property === 'oneroster.version') version = rec.value;
    if (!property.startsWith('file.')) continue;
    const name = property.slice('file.'.length);
    if (!['bulk', 'delta', 'absent'].includes(value)) {
      throw new CsvFileError(
        manifestSource.name,
        line,
        'value',
        `${property} is "${rec.value}"; expected bulk, delta or absent`,
      );
    }
    modes.set(name.toLowerCase(), value);
    if (value !== 'absent' && !bundle.file(`${name}.csv`)) {
      throw new CsvFileError(
        manifestSource.name,
        line,
        'value',
        `the manifest lists ${name}.csv as ${value}, but the bundle has no ${name}.csv`,
      );
    }
  }
  return { version, modes };
}

/**
 * Whether the users carry their roles (1.1) or roles.csv does (1.2), checking the bundle has
 * what that version needs. A manifest without a version is noted in `notes`.
 */
async function rolesInUsersOf(
  version: string,
  file: FileOf,
  csv: CsvReadOptions,
  notes: string[],
): Promise<boolean> {
  const usersFile = file('users');
  // The manifest says which version (a 1.2 export may keep an empty `role` column in users.csv);
  // without it, the header does.
  let rolesInUsers = version.startsWith('1.1');
  if (!version.startsWith('1.1') && !version.startsWith('1.2') && usersFile) {
    rolesInUsers = (await headerOf(usersFile, csv)).includes('role');
    notes.push(
      `the manifest states no oneroster.version (1.1 or 1.2): read as ${rolesInUsers ? '1.1 (users.csv has a role column)' : '1.2'}`,
    );
  }
  if (usersFile && !rolesInUsers && !file('roles')) {
    throw new CsvFileError(
      usersFile.name,
      1,
      undefined,
      'a OneRoster 1.2 users.csv needs roles.csv (which users are students), and the bundle lists none',
    );
  }
  if (usersFile && rolesInUsers && !(await headerOf(usersFile, csv)).includes('role')) {
    throw new CsvFileError(usersFile.name, 1, undefined, 'a OneRoster 1.1 users.csv needs its role column');
  }
  return rolesInUsers;
}

/**
 * The feeds' jobs in the spec's dependency order: the reference sections (held, mapped already),
 * the roster once per cohort, then the enrolments (streamed when their turn comes).
 */
function jobsOf(
  mapped: MappedOneRoster,
  file: FileOf,
  mapping: OneRosterMapping,
  fullSync: boolean,
): OneRosterJob[] {
  const fromArray = (items: Item[]) => () =>
    (async function* () {
      yield* items;
    })();
  const jobs: OneRosterJob[] = [];
  const reference = [
    ['programs', mapping.programsFrom === 'grades' ? 'users' : 'orgs', mapped.programs],
    ['campuses', 'orgs', mapped.campuses],
    ['terms', 'academicSessions', mapped.terms],
    ['units', 'courses', mapped.units],
  ] as const;
  for (const [section, name, items] of reference) {
    const f = file(name);
    if (f) jobs.push({ section, stream: section, label: section, file: f.name, items: fromArray(items) });
  }
  const usersFile = file('users');
  if (usersFile) {
    if (!mapped.cohorts.length)
      throw new Error('the bundle has users: give --cohort (or --cohort-for) to say where students go');
    for (const cohortId of mapped.cohorts) {
      jobs.push({
        section: 'roster',
        stream: `roster:${cohortId}`,
        label: `roster → cohort ${cohortId}`,
        file: usersFile.name,
        cohortId,
        items: () => mapped.users(cohortId, { fullSync }),
      });
    }
  }
  const enrollmentsFile = file('enrollments');
  if (enrollmentsFile) {
    jobs.push({
      section: 'enrolments',
      stream: 'enrolments',
      label: 'enrolments',
      file: enrollmentsFile.name,
      items: () => mapped.enrolments(),
    });
  }
  return jobs;
}
