// ssp push oneroster: a OneRoster CSV bundle (folder or zip) through the feeds, with the
// mapping's choices as options (docs/ssp-push.md).
import fs from 'node:fs';
import type { Command } from 'commander';
import {
  DEFAULT_MAPPING,
  type OneRosterMapping,
  PROGRAM_SOURCES,
  type ProgramSource,
  STUDENT_IDS,
} from '../../domain/oneroster/mapping.ts';
import { EXIT } from '../exit-codes.ts';
import { type CommonOptions, collect, common, csvOptions, list } from './command-options.ts';
import type { FeedPost } from './feed-client.ts';
import type { HeapBound } from './heap.ts';
import type { Item } from './pages.ts';
import type { Progress } from './progress.ts';
import { type Prepared, type PushOptions, runPush } from './run.ts';
import { PushStopped } from './send.ts';

type OneRosterOptions = CommonOptions & {
  institution: string;
  cohort?: string;
  cohortFor: string[];
  campusOrgTypes: string;
  programOrgTypes: string;
  termTypes: string;
  studentRoles: string;
  studentId: string;
  programsFrom: string;
  known?: string;
};

export function registerOneRosterCommand(
  push: Command,
  pushOptions: (o: CommonOptions, key: Record<string, unknown>, files: string[]) => PushOptions,
  finish: (run: () => Promise<number>) => Promise<void>,
  heap: () => HeapBound | undefined = () => undefined,
): void {
  common(oneRosterCommand(push)).action(async (location: string, o: OneRosterOptions) =>
    finish(async () => {
      const mapping = mappingOf(o);
      const key = {
        command: 'oneroster',
        institution: o.institution,
        mapping: { ...mapping, cohortForOrg: o.cohortFor },
        fullSync: o.fullSync,
      };
      const bundleFiles = fs.statSync(location, { throwIfNoEntry: false })?.isDirectory()
        ? fs.readdirSync(location).map((f) => `${location}/${f}`)
        : [location];
      return runPush(pushOptions(o, key, bundleFiles), (progress, post) =>
        prepareOneRoster(location, o, mapping, progress, post, heap),
      );
    }),
  );
}

/** The command with the mapping's choices as options. */
function oneRosterCommand(push: Command): Command {
  return push
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
      '--programs-from <source>',
      "programs: orgs (of --program-org-types), grades (the students' grades, K-12) or none",
      DEFAULT_MAPPING.programsFrom,
    )
    .option(
      '--program-org-types <types>',
      'org types pushed as programs (with --programs-from orgs)',
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
      'user field sent as student_id_ext: identifier (else sourcedId), sourcedId or username',
      DEFAULT_MAPPING.studentId,
    )
    .option(
      '--known <file>',
      'a memory file of earlier versions, read once more (the service keeps the memory now; default: .ssp-oneroster-<institution>.json)',
    )
    .option(
      '--full-sync',
      'the bundle (bulk users) is every student: those absent or tobedeleted are marked departed',
    );
}

/** The mapping the options choose, or PushStopped (a usage error) for a choice that is not one. */
function mappingOf(o: OneRosterOptions): OneRosterMapping {
  if (!(STUDENT_IDS as readonly string[]).includes(o.studentId)) {
    throw new PushStopped('--student-id takes identifier, sourcedId or username', EXIT.usage);
  }
  if (!(PROGRAM_SOURCES as readonly string[]).includes(o.programsFrom)) {
    throw new PushStopped('--programs-from takes orgs, grades or none', EXIT.usage);
  }
  const cohortForOrg = new Map<string, string>();
  for (const spec of o.cohortFor) {
    const at = spec.indexOf('=');
    if (at <= 0)
      throw new PushStopped(`--cohort-for ${spec}: expected <org sourcedId>=<cohort id>`, EXIT.usage);
    cohortForOrg.set(spec.slice(0, at).trim(), spec.slice(at + 1).trim());
  }
  return {
    campusOrgTypes: list(o.campusOrgTypes),
    programsFrom: o.programsFrom as ProgramSource,
    programOrgTypes: list(o.programOrgTypes),
    termTypes: list(o.termTypes),
    studentRoles: list(o.studentRoles),
    studentId: o.studentId as OneRosterMapping['studentId'],
    cohortForOrg,
    cohort: o.cohort,
  };
}

/** Opens the bundle and plans its jobs, with what earlier pushes and pulls placed. */
async function prepareOneRoster(
  location: string,
  o: OneRosterOptions,
  mapping: OneRosterMapping,
  progress: Progress,
  post: FeedPost,
  heap: () => HeapBound | undefined,
): Promise<Prepared> {
  const knownPath = o.known ?? `.ssp-oneroster-${o.institution}.json`;
  // The OneRoster code (and the zip reader) loads only for this command.
  const [{ openBundle }, { planOneRoster }, memory] = await Promise.all([
    import('./bundle.ts'),
    import('./oneroster.ts'),
    import('./oneroster-memory.ts'),
  ]);
  let bundle: Awaited<ReturnType<typeof openBundle>>;
  try {
    bundle = await openBundle(location);
  } catch (error) {
    throw new PushStopped((error as Error).message);
  }
  // What earlier pushes and pulls placed: the service's memory, whatever machine this is.
  // Only what the file added outlives the plan: the memory read is copied into the
  // mapping's own maps (known.ts) and dropped, not held twice for the whole push. A service that
  // answers what each page of enrollments placed is asked page by page, and keeps what the push
  // changes staged under the push's id until it ran to its end; an older one is read whole.
  const paged = await memory.answersPlacements(post, o.institution);
  const pushId = paged && !o.dryRun ? memory.newPushId() : undefined;
  const { fromFile, fileEntries, known } = await memory.readMemory(
    post,
    o.institution,
    knownPath,
    heap(),
    paged,
  );
  if (fileEntries)
    progress.note(`${knownPath}: ${fileEntries} entries the service did not have, handed to it`);
  const plan = await planOneRoster(
    bundle,
    mapping,
    csvOptions(o, progress),
    known,
    Boolean(o.fullSync),
    paged ? memory.servicePlacements(post, o.institution, pushId) : undefined,
  );
  if (o.fullSync && plan.delta.has('users')) {
    throw new PushStopped(
      'a delta bundle lists only changes, so it cannot say who left: --full-sync needs users.csv as bulk',
    );
  }
  progress.note(`${bundle.name}: OneRoster ${plan.version || '(version not stated)'} bundle`);
  return {
    jobs: plan.jobs.map((job) => ({
      ...collectingBefore(job, heap),
      institution: o.institution,
      fullSync: job.section === 'roster' && o.fullSync ? {} : undefined,
    })),
    notes: () => plan.notes,
    cleanup: () => bundle.close(),
    // What this push placed, for the next delta from anywhere: kept by the service only
    // when the push ran to its end.
    done: async () => {
      // The file's entries first: what the push changed is sent after them, and wins.
      const changed = function* () {
        yield* fromFile;
        yield* plan.changes();
      };
      // The enrolments sent (packed outside the heap, enrolments.ts) are garbage now, and their
      // buffers are handed back only when the objects holding them are collected: before the
      // changes are read out and sent, not beside them.
      heap()?.collect();
      if (o.dryRun) return;
      await memory.writeMemory(post, o.institution, changed(), heap(), pushId);
      if (pushId) await memory.commitMemory(post, o.institution, pushId);
    },
  };
}

/**
 * The job, its items read after a full collection for the enrolments: they release the roles the
 * roster needed (students.ts), collected before the enrolments' own maps grow beside them.
 */
function collectingBefore<J extends { section: string; items: () => AsyncIterable<Item> }>(
  job: J,
  heap: () => HeapBound | undefined,
): J {
  if (job.section !== 'enrolments') return job;
  return {
    ...job,
    items: () => {
      const items = job.items();
      heap()?.collect();
      return items;
    },
  };
}
