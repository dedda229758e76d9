// A OneRoster 1.1 / 1.2 CSV bundle mapped onto the feeds, in the spec's dependency order:
// programs and campuses (orgs), the calendar (academicSessions), units (courses), then the
// roster (users, with roles.csv in 1.2), then enrolments (enrollments, through classes).
// The mapping is in docs/ssp-push.md; every choice in it is an option (OneRosterMapping).
//
// Memory: orgs, sessions, courses and classes are held (an institution has thousands of them,
// not millions); users and enrollments are streamed. Two things grow with the student count:
// the students' roles of a 1.2 bundle (roles.csv joined to users.csv), and, when students are
// keyed by something other than their sourcedId, the sourcedId -> key map enrolments need.

import type { Bundle } from './bundle.ts';
import { distance } from './columns.ts';
import { CsvFileError, type CsvReadOptions, type FileSource, openCsv } from './csv-source.ts';
import type { Item } from './pages.ts';
import type { Section } from './send.ts';

export interface OneRosterMapping {
  /** Org types pushed as campuses (by name). */
  campusOrgTypes: string[];
  /** Org types pushed as programs (code: identifier, else sourcedId). */
  programOrgTypes: string[];
  /** Academic session types pushed as terms. */
  termTypes: string[];
  /** User roles pushed as students. */
  studentRoles: string[];
  /** Which user field becomes student_id_ext. */
  studentId: 'sourcedId' | 'identifier' | 'username';
  /** Where students go: the first of a student's orgs listed here, else `cohort`. */
  cohortForOrg: Map<string, string>;
  cohort?: string;
}

export const DEFAULT_MAPPING: Omit<OneRosterMapping, 'cohortForOrg'> = {
  campusOrgTypes: ['school'],
  programOrgTypes: ['department'],
  termTypes: ['term', 'semester'],
  studentRoles: ['student'],
  studentId: 'sourcedId',
};

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

type Rec = Record<string, string>;

const FILES = ['orgs', 'academicSessions', 'courses', 'classes', 'users', 'roles', 'enrollments'] as const;

const REQUIRED: Record<string, string[]> = {
  orgs: ['sourcedId', 'name', 'type'],
  academicSessions: ['sourcedId', 'title', 'type', 'startDate', 'endDate'],
  courses: ['sourcedId', 'title'],
  classes: ['sourcedId', 'courseSourcedId', 'termSourcedIds'],
  users: ['sourcedId', 'givenName', 'familyName', 'email'],
  roles: ['userSourcedId', 'role', 'orgSourcedId'],
  enrollments: ['sourcedId', 'classSourcedId', 'userSourcedId', 'role'],
};

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
  const file = (name: (typeof FILES)[number]) => {
    const mode = modes.get(name.toLowerCase());
    return mode === 'bulk' || mode === 'delta' ? bundle.file(`${name}.csv`) : undefined;
  };
  const delta = new Set(FILES.filter((f) => modes.get(f.toLowerCase()) === 'delta'));
  // Headers of every listed file are checked before anything is sent.
  for (const name of FILES) {
    const source = file(name);
    if (source) await checkHeader(source, REQUIRED[name], csv);
  }

  const notes: string[] = [];
  const skipped = new Map<string, number>();
  const skip = (what: string) => skipped.set(what, (skipped.get(what) ?? 0) + 1);
  const lower = (xs: string[]) => xs.map((x) => x.toLowerCase());
  const campusTypes = lower(mapping.campusOrgTypes);
  const programTypes = lower(mapping.programOrgTypes);
  const termTypes = lower(mapping.termTypes);
  const studentRoles = lower(mapping.studentRoles);

  // orgs -> programs and campuses
  const orgs = new Map<string, { kind: 'campus' | 'program' | 'other'; key: string; line: number }>();
  const programItems: Item[] = [];
  const campusItems: Item[] = [];
  const orgsFile = file('orgs');
  if (orgsFile) {
    for await (const { line, rec } of records(orgsFile, REQUIRED.orgs, csv)) {
      const type = (rec.type ?? '').toLowerCase();
      const origin = { file: orgsFile.name, line };
      const kind = campusTypes.includes(type) ? 'campus' : programTypes.includes(type) ? 'program' : 'other';
      const key = kind === 'program' ? rec.identifier || rec.sourcedid : rec.name;
      orgs.set(rec.sourcedid, { kind, key, line });
      if (deleted(rec)) {
        if (kind !== 'other') skip(`orgs marked tobedeleted (kept in the service)`);
        continue;
      }
      if (kind === 'campus') campusItems.push({ origin, row: { name: rec.name } });
      if (kind === 'program') programItems.push({ origin, row: { program_code: key, name: rec.name } });
    }
  }

  // academicSessions -> terms
  const sessions = new Map<string, { term: boolean; parent: string }>();
  const termItems: Item[] = [];
  const sessionsFile = file('academicSessions');
  if (sessionsFile) {
    for await (const { line, rec } of records(sessionsFile, REQUIRED.academicSessions, csv)) {
      const term = termTypes.includes((rec.type ?? '').toLowerCase());
      sessions.set(rec.sourcedid, { term, parent: rec.parentsourcedid ?? '' });
      if (!term) continue;
      if (deleted(rec)) {
        skip('academic sessions marked tobedeleted (kept in the service)');
        continue;
      }
      termItems.push({
        origin: { file: sessionsFile.name, line },
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
  const unitItems: Item[] = [];
  const coursesFile = file('courses');
  if (coursesFile) {
    for await (const { line, rec } of records(coursesFile, REQUIRED.courses, csv)) {
      const code = rec.coursecode || rec.sourcedid;
      courses.set(rec.sourcedid, code);
      if (deleted(rec)) {
        skip('courses marked tobedeleted (kept in the service)');
        continue;
      }
      const org = orgs.get(rec.orgsourcedid ?? '');
      unitItems.push({
        origin: { file: coursesFile.name, line },
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
  const classes = new Map<string, { unit?: string; term?: string }>();
  const classesFile = file('classes');
  if (classesFile) {
    for await (const { rec } of records(classesFile, REQUIRED.classes, csv)) {
      const termIds = (rec.termsourcedids ?? '').split(',').map((t) => t.trim());
      let term = termIds.find((t) => sessions.get(t)?.term);
      if (!term) {
        const parent = termIds.map((t) => sessions.get(t)?.parent).find((p) => p && sessions.get(p)?.term);
        term = parent;
      }
      classes.set(rec.sourcedid, { unit: courses.get(rec.coursesourcedid ?? ''), term });
    }
  }

  // roles.csv (1.2): which users are students, and their orgs
  const usersFile = file('users');
  const rolesFile = file('roles');
  let studentOrgs: Map<string, string[]> | undefined;
  if (usersFile) {
    const header = await headerOf(usersFile, csv);
    const hasRole = header.includes('role');
    if (!hasRole && !rolesFile) {
      throw new CsvFileError(
        usersFile.name,
        1,
        undefined,
        'users.csv has no role column (OneRoster 1.2) and the bundle lists no roles.csv: cannot tell which users are students',
      );
    }
    if (!hasRole && rolesFile) {
      studentOrgs = new Map();
      for await (const { rec } of records(rolesFile, REQUIRED.roles, csv)) {
        if (deleted(rec) || !studentRoles.includes((rec.role ?? '').toLowerCase())) continue;
        const list = studentOrgs.get(rec.usersourcedid) ?? [];
        if (rec.orgsourcedid) list.push(rec.orgsourcedid);
        studentOrgs.set(rec.usersourcedid, list);
      }
    }
  }

  const cohorts = [
    ...new Set([...mapping.cohortForOrg.values(), ...(mapping.cohort ? [mapping.cohort] : [])]),
  ];
  const cohortOf = (orgIds: string[]) => {
    for (const id of orgIds) {
      const c = mapping.cohortForOrg.get(id);
      if (c) return c;
    }
    return mapping.cohort;
  };
  // When students are keyed by something else than their sourcedId, enrolments need the map.
  const studentKeys = mapping.studentId === 'sourcedId' ? undefined : new Map<string, string>();
  const tobedeletedUsers = { count: 0 };

  const userItems = (cohortId: string) =>
    async function* (): AsyncGenerator<Item> {
      for await (const { line, rec } of records(usersFile!, REQUIRED.users, csv)) {
        const origin = { file: usersFile!.name, line };
        let orgIds: string[];
        if (studentOrgs) {
          const found = studentOrgs.get(rec.sourcedid);
          if (!found) continue;
          orgIds = found.length ? found : [rec.primaryorgsourcedid ?? ''].filter(Boolean);
        } else {
          if (!studentRoles.includes((rec.role ?? '').toLowerCase())) continue;
          orgIds = (rec.orgsourcedids ?? '')
            .split(',')
            .map((o) => o.trim())
            .filter(Boolean);
        }
        const target = cohortOf(orgIds);
        if (target !== cohortId) {
          if (target === undefined && cohortId === cohorts[0]) {
            yield {
              origin,
              problem: {
                code: 'no_cohort',
                message: `student ${rec.sourcedid} belongs to no org given a cohort by --cohort-for, and no --cohort was given`,
              },
            };
          }
          continue;
        }
        const key = mapping.studentId === 'sourcedId' ? rec.sourcedid : rec[mapping.studentId.toLowerCase()];
        if (studentKeys && key) studentKeys.set(rec.sourcedid, key);
        if (deleted(rec)) {
          // Never deleted: left out of the push, so a full sync departs the student.
          tobedeletedUsers.count++;
          continue;
        }
        const program = orgIds.map((o) => orgs.get(o)).find((o) => o?.kind === 'program');
        const campus = orgIds.map((o) => orgs.get(o)).find((o) => o?.kind === 'campus');
        yield {
          origin,
          row: {
            email: rec.email,
            student_id_ext: key,
            first_name: rec.preferredgivenname || rec.givenname,
            last_name: rec.preferredfamilyname || rec.familyname,
            ...(program ? { program_code: program.key } : {}),
            ...(campus ? { campus_name: campus.key } : {}),
          },
        };
      }
    };

  const enrollmentsFile = file('enrollments');
  const enrolmentItems = async function* (): AsyncGenerator<Item> {
    for await (const { line, rec } of records(enrollmentsFile!, REQUIRED.enrollments, csv)) {
      if (!studentRoles.includes((rec.role ?? '').toLowerCase())) continue;
      const origin = { file: enrollmentsFile!.name, line };
      const cls = classes.get(rec.classsourcedid);
      const student = studentKeys ? studentKeys.get(rec.usersourcedid) : rec.usersourcedid;
      const missing = !cls
        ? `class ${rec.classsourcedid} is not in classes.csv`
        : !cls.unit
          ? `the course of class ${rec.classsourcedid} is not in courses.csv`
          : !cls.term
            ? `class ${rec.classsourcedid} has no academic session of type ${mapping.termTypes.join(' or ')}`
            : !student
              ? `user ${rec.usersourcedid} is not a student of users.csv`
              : undefined;
      if (missing) {
        yield { origin, problem: { code: 'unmapped', message: missing } };
        continue;
      }
      yield {
        origin,
        row: {
          student_id_ext: student,
          unit_code: cls!.unit,
          term_code: cls!.term,
          // Never deleted: a removed enrolment is withdrawn (docs/enrolments.md).
          status: deleted(rec) ? 'withdrawn' : 'enrolled',
        },
      };
    }
  };

  const fromArray = (items: Item[]) => () =>
    (async function* () {
      yield* items;
    })();
  const jobs: OneRosterJob[] = [];
  if (orgsFile) {
    jobs.push({
      section: 'programs',
      stream: 'programs',
      label: 'programs',
      file: orgsFile.name,
      items: fromArray(programItems),
    });
    jobs.push({
      section: 'campuses',
      stream: 'campuses',
      label: 'campuses',
      file: orgsFile.name,
      items: fromArray(campusItems),
    });
  }
  if (sessionsFile) {
    jobs.push({
      section: 'terms',
      stream: 'terms',
      label: 'terms',
      file: sessionsFile.name,
      items: fromArray(termItems),
    });
  }
  if (coursesFile) {
    jobs.push({
      section: 'units',
      stream: 'units',
      label: 'units',
      file: coursesFile.name,
      items: fromArray(unitItems),
    });
  }
  if (usersFile) {
    if (!cohorts.length)
      throw new Error('the bundle has users: give --cohort (or --cohort-for) to say where students go');
    for (const cohortId of cohorts) {
      jobs.push({
        section: 'roster',
        stream: `roster:${cohortId}`,
        label: `roster → cohort ${cohortId}`,
        file: usersFile.name,
        cohortId,
        items: userItems(cohortId),
      });
    }
  }
  if (enrollmentsFile) {
    jobs.push({
      section: 'enrolments',
      stream: 'enrolments',
      label: 'enrolments',
      file: enrollmentsFile.name,
      items: enrolmentItems,
    });
  }
  return {
    version,
    jobs,
    delta,
    get notes() {
      const out = [...notes];
      for (const [what, count] of skipped) out.push(`${count} ${what}`);
      if (tobedeletedUsers.count) {
        out.push(
          `${tobedeletedUsers.count} students marked tobedeleted were not pushed (nothing is deleted; ` +
            'a bulk bundle pushed with --full-sync marks them departed)',
        );
      }
      return out;
    },
  };
}

function deleted(rec: Rec): boolean {
  return (rec.status ?? '').toLowerCase() === 'tobedeleted';
}

/** OneRoster dates are yyyy-mm-dd (1.2 allows a full date-time in some exports). */
function date(value: string | undefined): string | undefined {
  return value ? value.slice(0, 10) : undefined;
}

async function headerOf(source: FileSource, csv: CsvReadOptions): Promise<string[]> {
  const file = await openCsv(source, { ...csv, onBytes: undefined, notice: undefined });
  file.close();
  return file.header.map((h) => h.toLowerCase());
}

async function checkHeader(source: FileSource, required: string[], csv: CsvReadOptions): Promise<void> {
  const header = await headerOf(source, csv);
  const problems: string[] = [];
  for (const name of required) {
    if (header.includes(name.toLowerCase())) continue;
    const close = header.find((h) => distance(h, name.toLowerCase()) <= 2);
    problems.push(`missing column "${name}"${close ? ` (is "${close}" a misspelling of it?)` : ''}`);
  }
  if (problems.length) throw new CsvFileError(source.name, 1, undefined, problems.join('; '));
}

/** The records of a OneRoster file as objects keyed by lower-cased column name. */
async function* records(
  source: FileSource,
  required: string[],
  csv: CsvReadOptions,
): AsyncGenerator<{ line: number; rec: Rec }> {
  const file = await openCsv(source, csv);
  const header = file.header.map((h) => h.toLowerCase());
  for (const name of required) {
    if (!header.includes(name.toLowerCase())) {
      throw new CsvFileError(source.name, 1, undefined, `missing column "${name}"`);
    }
  }
  for await (const { line, values } of file.records) {
    if (values.length !== header.length) {
      throw new CsvFileError(
        source.name,
        line,
        undefined,
        `${values.length} values but the header has ${header.length} columns`,
      );
    }
    const rec: Rec = {};
    for (let i = 0; i < header.length; i++) rec[header[i]] = values[i].trim();
    yield { line, rec };
  }
}
