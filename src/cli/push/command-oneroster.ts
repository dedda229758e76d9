// ssp push oneroster: a OneRoster CSV bundle (folder or zip) through the feeds, with the
// mapping's choices as options (docs/ssp-push.md).
import fs from 'node:fs';
import type { Command } from 'commander';
import { DEFAULT_MAPPING, type OneRosterMapping } from '../../domain/oneroster/mapping.ts';
import { type CommonOptions, collect, common, csvOptions, list } from './command-options.ts';
import { type Prepared, type PushOptions, runPush } from './run.ts';
import { PushStopped } from './send.ts';

export function registerOneRosterCommand(
  push: Command,
  pushOptions: (o: CommonOptions, key: Record<string, unknown>, files: string[]) => PushOptions,
  finish: (run: () => Promise<number>) => Promise<void>,
): void {
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
