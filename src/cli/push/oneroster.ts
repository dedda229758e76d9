// A OneRoster 1.1 / 1.2 CSV bundle mapped onto the feeds, in the spec's dependency order:
// programs and campuses (orgs), the calendar (academicSessions), units (courses), then the
// roster (users, with roles.csv in 1.2), then enrolments (enrollments, through classes).
// This module reads the manifest and plans the jobs; oneroster-catalogue.ts reads the reference
// files (held), oneroster-students.ts streams users and enrollments. The mapping is in
// docs/ssp-push.md; every choice in it is an option (OneRosterMapping).

import { readCatalogue } from '../../domain/oneroster/catalogue.ts';
import type { OneRosterMapping } from '../../domain/oneroster/mapping.ts';
import { readStudents } from '../../domain/oneroster/students.ts';
import type { Bundle } from './bundle.ts';
import { CsvFileError, type CsvReadOptions } from './csv-source.ts';
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
}

/** Reads the manifest, checks the files it lists, and plans the feeds' jobs. */
export async function planOneRoster(
  bundle: Bundle,
  mapping: OneRosterMapping,
  csv: CsvReadOptions,
): Promise<OneRosterPlan> {
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
  const file = (name: OneRosterFile) => {
    const mode = modes.get(name.toLowerCase());
    return mode === 'bulk' || mode === 'delta' ? bundle.file(`${name}.csv`) : undefined;
  };
  const delta = new Set(FILES.filter((f) => modes.get(f.toLowerCase()) === 'delta'));
  // Headers of every listed file are checked before anything is sent.
  for (const name of FILES) {
    const source = file(name);
    if (source) await checkHeader(source, REQUIRED[name], csv);
  }

  const skipped = new Map<string, number>();
  const skip = (what: string) => skipped.set(what, (skipped.get(what) ?? 0) + 1);
  const source = (name: OneRosterFile) => {
    const f = file(name);
    return f && recordSource(f, REQUIRED[name], csv);
  };
  const catalogue = await readCatalogue(
    {
      orgs: source('orgs'),
      academicSessions: source('academicSessions'),
      courses: source('courses'),
      classes: source('classes'),
    },
    mapping,
    skip,
  );
  const usersFile = file('users');
  const enrollmentsFile = file('enrollments');
  const rolesInUsers = usersFile ? (await headerOf(usersFile, csv)).includes('role') : false;
  if (usersFile && !rolesInUsers && !file('roles')) {
    throw new CsvFileError(
      usersFile.name,
      1,
      undefined,
      'users.csv has no role column (OneRoster 1.2) and the bundle lists no roles.csv: cannot tell which users are students',
    );
  }
  const students = await readStudents(
    { users: source('users'), roles: source('roles'), enrollments: source('enrollments') },
    catalogue,
    mapping,
    rolesInUsers,
  );

  const fromArray = (items: Item[]) => () =>
    (async function* () {
      yield* items;
    })();
  const jobs: OneRosterJob[] = [];
  const reference = [
    ['programs', 'orgs', catalogue.programItems],
    ['campuses', 'orgs', catalogue.campusItems],
    ['terms', 'academicSessions', catalogue.termItems],
    ['units', 'courses', catalogue.unitItems],
  ] as const;
  for (const [section, name, items] of reference) {
    const source = file(name);
    if (source)
      jobs.push({ section, stream: section, label: section, file: source.name, items: fromArray(items) });
  }
  if (usersFile) {
    if (!students.cohorts.length)
      throw new Error('the bundle has users: give --cohort (or --cohort-for) to say where students go');
    for (const cohortId of students.cohorts) {
      jobs.push({
        section: 'roster',
        stream: `roster:${cohortId}`,
        label: `roster → cohort ${cohortId}`,
        file: usersFile.name,
        cohortId,
        items: () => students.users(cohortId),
      });
    }
  }
  if (enrollmentsFile) {
    jobs.push({
      section: 'enrolments',
      stream: 'enrolments',
      label: 'enrolments',
      file: enrollmentsFile.name,
      items: () => students.enrolments(),
    });
  }
  return {
    version,
    jobs,
    delta,
    get notes() {
      const out: string[] = [];
      for (const [what, count] of skipped) out.push(`${count} ${what}`);
      if (students.tobedeleted) {
        out.push(
          `${students.tobedeleted} students marked tobedeleted were not pushed (nothing is deleted; ` +
            'a bulk bundle pushed with --full-sync marks them departed)',
        );
      }
      return out;
    },
  };
}
