// ssp push taxonomy | roster | enrolments | oneroster: the SIS side of the integration, from
// CSV exports and OneRoster bundles, through the feed endpoints with the roster secret.
// Usage, mappings and exit codes: docs/ssp-push.md.
import type { Command } from 'commander';
import { EXIT, EXIT_CODES_HELP } from '../exit-codes.ts';
import { registerOneRosterCommand } from './command-oneroster.ts';
import { type CommonOptions, common, csvJob, optionsOf } from './command-options.ts';
import { boundHeap, type HeapBound } from './heap.ts';
import { interruptOnSigint } from './interrupt.ts';
import { type PushIo, type PushJob, type PushOptions, runPush } from './run.ts';
import { PushStopped } from './send.ts';

const processIo: PushIo = { out: process.stdout, err: process.stderr, env: process.env };

/** A command's options as runPush takes them (the key names the push for resuming). */
type PushOptionsOf = (o: CommonOptions, key: Record<string, unknown>, files: string[]) => PushOptions;
/** Runs a push and sets the exit code from it. */
type Finish = (run: () => Promise<number>) => Promise<void>;

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
    onInterrupt: io === processIo ? interruptOnSigint : undefined,
  });
  const finish = async (run: () => Promise<number>): Promise<void> => {
    if (io === processIo) heap ??= boundHeap();
    try {
      exit(await run());
    } catch (error) {
      if (!(error instanceof PushStopped)) throw error;
      io.err.write(`ssp push: ${error.message}\n`);
      exit(error.exitCode);
    }
  };

  const push = program
    .command('push')
    .description('Push SIS exports (CSV files, OneRoster bundles) through the roster and enrolments feeds')
    .addHelpText(
      'after',
      '\nThe service is --url or $SSP_URL; the feed secret $SSP_ROSTER_SECRET.\n' +
        '--json (before or after the command) prints the report as JSON on stdout, with the run ids.\n' +
        `${EXIT_CODES_HELP}\nSee docs/ssp-push.md.`,
    );

  registerTaxonomyCommand(push, pushOptions, finish);
  registerRosterCommand(push, pushOptions, finish);
  registerEnrolmentsCommand(push, pushOptions, finish);
  registerOneRosterCommand(push, pushOptions, finish, () => heap);
}

/** ssp push taxonomy: programs and campuses. */
function registerTaxonomyCommand(push: Command, pushOptions: PushOptionsOf, finish: Finish): void {
  common(
    push
      .command('taxonomy')
      .description('Push programs and campuses (CSV files of our columns) to POST /api/sis/enrolments')
      .requiredOption('--institution <slug>', "the institution's slug")
      .option('--programs <file>', 'programs: program_code, name, coordinator_name, coordinator_title')
      .option('--campuses <file>', 'campuses: name'),
  ).action(async (o: CommonOptions & { institution: string; programs?: string; campuses?: string }) =>
    finish(async () => {
      if (!o.programs && !o.campuses) throw new PushStopped('give --programs and/or --campuses', EXIT.usage);
      const files = [o.programs, o.campuses].filter((f): f is string => !!f);
      return runPush(
        pushOptions(o, { command: 'taxonomy', institution: o.institution }, files),
        async (progress) => {
          const jobs: PushJob[] = [];
          for (const [section, file] of [
            ['programs', o.programs],
            ['campuses', o.campuses],
          ] as const) {
            if (!file) continue;
            jobs.push(
              await csvJob(file, section, o, progress, {
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
}

/** ssp push roster: a cohort's students. */
function registerRosterCommand(push: Command, pushOptions: PushOptionsOf, finish: Finish): void {
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
}

/** ssp push enrolments: terms, units and enrolments. */
function registerEnrolmentsCommand(push: Command, pushOptions: PushOptionsOf, finish: Finish): void {
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
        if (!given.length) throw new PushStopped('give --terms, --units and/or --enrolments', EXIT.usage);
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
}
