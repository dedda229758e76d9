// ssp push taxonomy | roster | enrolments | oneroster: the SIS side of the integration, from
// CSV exports and OneRoster bundles, through the feed endpoints with the roster secret.
// Usage, mappings and exit codes: docs/ssp-push.md.
import fs from 'node:fs';
import type { Command } from 'commander';
import { type ColumnMap, type FileKind, parseColumnMap, resolveHeader, toRow } from './columns.ts';
import { type CsvReadOptions, type Encoding, type FileSource, openCsv } from './csv-source.ts';
import { boundHeap, type HeapBound } from './heap.ts';
import { DEFAULT_MAPPING, type OneRosterMapping } from './oneroster-mapping.ts';
import type { Item } from './pages.ts';
import type { Progress } from './progress.ts';
import { type Prepared, type PushIo, type PushJob, type PushOptions, runPush } from './run.ts';
import { PushStopped } from './send.ts';
import { pushKey } from './state.ts';

const collect = (value: string, previous: string[]) => [...previous, value];
const list = (value: string) =>
  value
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);

interface CommonOptions {
  secret?: string;
  dryRun?: boolean;
  errors: string;
  state: string;
  restart?: boolean;
  pageSize?: string;
  encoding: string;
  delimiter?: string;
  retries: string;
  map: string[];
  mapFile?: string;
  fullSync?: boolean;
  syncId?: string;
}

function common(command: Command): Command {
  return command
    .option(
      '--secret <secret>',
      'feed secret (default: $SSP_ROSTER_SECRET; prefer the variable: arguments show in process lists)',
    )
    .option('--dry-run', 'validate and match everything, write nothing; print what would happen')
    .option(
      '--errors <file>',
      'CSV of rejected rows (file, line, section, column, code, message)',
      'ssp-push-errors.csv',
    )
    .option('--state <file>', 'resume state: pages answered so far', '.ssp-push-state.json')
    .option('--restart', 'ignore the resume state and push from the start')
    .option('--page-size <n>', 'rows per request (at most the feed limit: 5000 students)')
    .option('--encoding <encoding>', 'auto (UTF-8, or UTF-16 with a byte-order mark), utf8 or latin1', 'auto')
    .option(
      '--delimiter <char>',
      'column separator (default: detected from the header: comma, semicolon or tab)',
    )
    .option('--retries <n>', 'attempts per page on 429, 5xx and network errors', '6')
    .option(
      '--map <source=column>',
      'map a source column onto ours, e.g. "Student Number=student_id_ext" (repeatable; "Notes=" ignores a column)',
      collect,
      [],
    )
    .option('--map-file <file.json>', 'column map as JSON: {"Source column": "our_column"}');
}

function sourceOf(path: string): FileSource {
  const stat = fs.statSync(path, { throwIfNoEntry: false });
  if (!stat?.isFile()) throw new PushStopped(`${path}: no such file`);
  return {
    name: path,
    size: stat.size,
    // 16 KB chunks: the records of a chunk are parsed and handed on together (csv-source.ts),
    // so the chunk's size is how many row objects are alive at once (about 250, not 1000).
    open: async () => fs.createReadStream(path, { highWaterMark: 16 * 1024 }),
  };
}

function csvOptions(o: CommonOptions, progress: Progress): CsvReadOptions {
  if (!['auto', 'utf8', 'latin1'].includes(o.encoding)) {
    throw new PushStopped(`--encoding ${o.encoding}: expected auto, utf8 or latin1`);
  }
  if (o.delimiter !== undefined && [...o.delimiter].length !== 1 && o.delimiter !== '\\t') {
    throw new PushStopped('--delimiter takes one character');
  }
  return {
    encoding: o.encoding as Encoding,
    delimiter: o.delimiter === '\\t' ? '\t' : o.delimiter,
    notice: (m) => progress.note(m),
    onBytes: (n) => progress.bytes(n),
  };
}

function columnMap(o: CommonOptions): ColumnMap {
  try {
    const file = o.mapFile ? JSON.parse(fs.readFileSync(o.mapFile, 'utf8')) : undefined;
    return parseColumnMap(o.map, file);
  } catch (error) {
    throw new PushStopped((error as Error).message);
  }
}

/** Opens a CSV file of our columns, checks its header, and returns its job. */
async function csvJob(
  path: string,
  kind: FileKind,
  o: CommonOptions,
  progress: Progress,
  job: Omit<PushJob, 'items' | 'file' | 'size'>,
): Promise<PushJob> {
  const source = sourceOf(path);
  const file = await openCsv(source, csvOptions(o, progress));
  const header = resolveHeader(source.name, kind, file.header, columnMap(o));
  return {
    ...job,
    file: source.name,
    size: source.size,
    items: () =>
      (async function* (): AsyncGenerator<Item[]> {
        for await (const records of file.records) {
          yield records.map(({ line, values }): Item => {
            const origin = { file: source.name, line };
            const { row, problem } = toRow(header, values);
            return problem ? { origin, problem: { code: 'bad_record', ...problem } } : { origin, row };
          });
        }
      })(),
  };
}

function optionsOf(
  program: Command,
  io: PushIo,
  o: CommonOptions,
  key: Record<string, unknown>,
  files: string[],
): PushOptions {
  const pageSize = o.pageSize === undefined ? undefined : Number(o.pageSize);
  if (pageSize !== undefined && !(Number.isInteger(pageSize) && pageSize > 0)) {
    throw new PushStopped('--page-size takes a positive whole number');
  }
  const attempts = Number(o.retries);
  return {
    url: program.opts().url as string,
    secret: o.secret ?? io.env.SSP_ROSTER_SECRET,
    dryRun: o.dryRun === true,
    errorsPath: o.errors,
    statePath: o.state,
    restart: o.restart === true,
    pageSize,
    attempts: Number.isInteger(attempts) && attempts > 0 ? attempts : 6,
    key: pushKey({ ...key, url: program.opts().url, pageSize, map: o.map, mapFile: o.mapFile }, files),
    io,
  };
}

const processIo: PushIo = { out: process.stdout, err: process.stderr, env: process.env };

export function registerPushCommands(
  program: Command,
  io: PushIo = processIo,
  exit: (code: number) => void = (code) => {
    process.exitCode = code;
  },
): void {
  // The heap is bounded in the ssp process only (heap.ts).
  let heap: HeapBound | undefined;
  const pushOptions = (o: CommonOptions, key: Record<string, unknown>, files: string[]): PushOptions => ({
    ...optionsOf(program, io, o, key, files),
    afterPage: heap?.pageDone,
  });
  const finish = async (run: () => Promise<number>): Promise<void> => {
    if (io === processIo) heap ??= boundHeap();
    try {
      exit(await run());
    } catch (error) {
      if (!(error instanceof PushStopped)) throw error;
      io.err.write(`ssp push: ${error.message}\n`);
      exit(1);
    }
  };

  const push = program
    .command('push')
    .description('Push SIS exports (CSV files, OneRoster bundles) through the roster and enrolments feeds')
    .addHelpText(
      'after',
      '\nThe service is --url or $SSP_URL; the feed secret $SSP_ROSTER_SECRET.\n' +
        'Exit codes: 0 every row accepted, 2 the push ended but some rows were rejected, 1 the push failed.\n' +
        'See docs/ssp-push.md.',
    );

  common(
    push
      .command('taxonomy')
      .description('Push programs and campuses (CSV files of our columns) to POST /api/sis/enrolments')
      .requiredOption('--institution <slug>', "the institution's slug")
      .option('--programs <file>', 'programs: program_code, name, coordinator_name, coordinator_title')
      .option('--campuses <file>', 'campuses: name'),
  ).action(async (o: CommonOptions & { institution: string; programs?: string; campuses?: string }) =>
    finish(async () => {
      if (!o.programs && !o.campuses) throw new PushStopped('give --programs and/or --campuses');
      const files = [o.programs, o.campuses].filter((f): f is string => !!f);
      return runPush(
        pushOptions(o, { command: 'taxonomy', institution: o.institution }, files),
        async (progress) => {
          const jobs: PushJob[] = [];
          if (o.programs) {
            jobs.push(
              await csvJob(o.programs, 'programs', o, progress, {
                section: 'programs',
                stream: 'programs',
                label: 'programs',
                institution: o.institution,
              }),
            );
          }
          if (o.campuses) {
            jobs.push(
              await csvJob(o.campuses, 'campuses', o, progress, {
                section: 'campuses',
                stream: 'campuses',
                label: 'campuses',
                institution: o.institution,
              }),
            );
          }
          return { jobs };
        },
      );
    }),
  );

  common(
    push
      .command('roster')
      .description("Push a cohort's students (a CSV file) to POST /api/sis/sync in pages of up to 5000")
      .argument(
        '<file>',
        'CSV: email, student_id_ext, first_name, last_name, program_code, campus_name, first_in_family, start_date',
      )
      .requiredOption('--cohort <id>', "the cohort's id")
      .option(
        '--full-sync',
        'this file is the whole cohort: students it does not name are marked departed (never deleted)',
      )
      .option('--sync-id <id>', 'name of the full sync (default: generated, kept in the resume state)'),
  ).action(async (file: string, o: CommonOptions & { cohort: string }) =>
    finish(() =>
      runPush(
        pushOptions(o, { command: 'roster', cohort: o.cohort, fullSync: o.fullSync, syncId: o.syncId }, [
          file,
        ]),
        async (progress) => ({
          jobs: [
            await csvJob(file, 'roster', o, progress, {
              section: 'roster',
              stream: `roster:${o.cohort}`,
              label: 'roster',
              cohortId: o.cohort,
              fullSync: o.fullSync ? { syncId: o.syncId } : undefined,
            }),
          ],
        }),
      ),
    ),
  );

  common(
    push
      .command('enrolments')
      .description('Push the teaching calendar, units and enrolments (CSV files) to POST /api/sis/enrolments')
      .requiredOption('--institution <slug>', "the institution's slug")
      .option('--terms <file>', 'terms: term_code, name, start_date, end_date')
      .option('--units <file>', 'units: unit_code, name, program_code, campus_name')
      .option('--enrolments <file>', 'enrolments: email and/or student_id_ext, unit_code, term_code, status'),
  ).action(
    async (o: CommonOptions & { institution: string; terms?: string; units?: string; enrolments?: string }) =>
      finish(async () => {
        const given = (['terms', 'units', 'enrolments'] as const).filter((k) => o[k]);
        if (!given.length) throw new PushStopped('give --terms, --units and/or --enrolments');
        return runPush(
          pushOptions(
            o,
            { command: 'enrolments', institution: o.institution },
            given.map((k) => o[k]!),
          ),
          async (progress) => {
            const jobs: PushJob[] = [];
            for (const section of given) {
              jobs.push(
                await csvJob(o[section]!, section, o, progress, {
                  section,
                  stream: section,
                  label: section,
                  institution: o.institution,
                }),
              );
            }
            return { jobs };
          },
        );
      }),
  );

  common(
    push
      .command('oneroster')
      .description(
        'Push a OneRoster 1.1/1.2 CSV bundle (folder or zip): orgs, sessions, courses, users, enrollments',
      )
      .argument('<bundle>', 'folder or .zip holding manifest.csv and the files it lists')
      .requiredOption('--institution <slug>', "the institution's slug")
      .option('--cohort <id>', 'cohort for students (those not placed by --cohort-for)')
      .option(
        '--cohort-for <org=cohort>',
        'students of this org (sourcedId) go to this cohort (repeatable)',
        collect,
        [],
      )
      .option(
        '--campus-org-types <types>',
        'org types pushed as campuses',
        DEFAULT_MAPPING.campusOrgTypes.join(','),
      )
      .option(
        '--program-org-types <types>',
        'org types pushed as programs',
        DEFAULT_MAPPING.programOrgTypes.join(','),
      )
      .option(
        '--term-types <types>',
        'academic session types pushed as terms',
        DEFAULT_MAPPING.termTypes.join(','),
      )
      .option(
        '--student-roles <roles>',
        'user roles pushed as students',
        DEFAULT_MAPPING.studentRoles.join(','),
      )
      .option(
        '--student-id <field>',
        'user field sent as student_id_ext: sourcedId, identifier or username',
        DEFAULT_MAPPING.studentId,
      )
      .option(
        '--full-sync',
        'the bundle (bulk users) is every student: those absent or tobedeleted are marked departed',
      ),
  ).action(
    async (
      location: string,
      o: CommonOptions & {
        institution: string;
        cohort?: string;
        cohortFor: string[];
        campusOrgTypes: string;
        programOrgTypes: string;
        termTypes: string;
        studentRoles: string;
        studentId: string;
      },
    ) =>
      finish(async () => {
        if (!['sourcedId', 'identifier', 'username'].includes(o.studentId)) {
          throw new PushStopped('--student-id takes sourcedId, identifier or username');
        }
        const cohortForOrg = new Map<string, string>();
        for (const spec of o.cohortFor) {
          const at = spec.indexOf('=');
          if (at <= 0) throw new PushStopped(`--cohort-for ${spec}: expected <org sourcedId>=<cohort id>`);
          cohortForOrg.set(spec.slice(0, at).trim(), spec.slice(at + 1).trim());
        }
        const mapping: OneRosterMapping = {
          campusOrgTypes: list(o.campusOrgTypes),
          programOrgTypes: list(o.programOrgTypes),
          termTypes: list(o.termTypes),
          studentRoles: list(o.studentRoles),
          studentId: o.studentId as OneRosterMapping['studentId'],
          cohortForOrg,
          cohort: o.cohort,
        };
        const key = {
          command: 'oneroster',
          institution: o.institution,
          mapping: { ...mapping, cohortForOrg: o.cohortFor },
          fullSync: o.fullSync,
        };
        const bundleFiles = fs.statSync(location, { throwIfNoEntry: false })?.isDirectory()
          ? fs.readdirSync(location).map((f) => `${location}/${f}`)
          : [location];
        return runPush(pushOptions(o, key, bundleFiles), async (progress): Promise<Prepared> => {
          // The OneRoster code (and the zip reader) loads only for this command.
          const [{ openBundle }, { planOneRoster }] = await Promise.all([
            import('./bundle.ts'),
            import('./oneroster.ts'),
          ]);
          let bundle: Awaited<ReturnType<typeof openBundle>>;
          try {
            bundle = await openBundle(location);
          } catch (error) {
            throw new PushStopped((error as Error).message);
          }
          const plan = await planOneRoster(bundle, mapping, csvOptions(o, progress));
          if (o.fullSync && plan.delta.has('users')) {
            throw new PushStopped(
              'a delta bundle lists only changes, so it cannot say who left: --full-sync needs users.csv as bulk',
            );
          }
          progress.note(`${bundle.name}: OneRoster ${plan.version || '(version not stated)'} bundle`);
          return {
            jobs: plan.jobs.map((job) => ({
              ...job,
              institution: o.institution,
              fullSync: job.section === 'roster' && o.fullSync ? {} : undefined,
            })),
            notes: () => plan.notes,
            cleanup: () => bundle.close(),
          };
        });
      }),
  );
}
