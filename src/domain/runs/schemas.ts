// The shapes of the push history, defined once: a run as the listing shows it, a run with its row
// errors, and the runs of a day. The admin API answers with them and the console's push-history
// pages type their view models with them, so the two cannot drift apart.
import { type Static, Type } from 'typebox';
import { DateTime, Nullable, Uuid } from '../../lib/schema.ts';

export const RunKind = Type.Union(
  [Type.Literal('roster'), Type.Literal('enrolments'), Type.Literal('oneroster')],
  {
    description:
      'roster and enrolments: a feed request; oneroster: a pull of the OneRoster source (docs/oneroster.md)',
  },
);
export type RunKind = Static<typeof RunKind>;
export const runKinds: readonly RunKind[] = ['roster', 'enrolments', 'oneroster'];

export const RunCredential = Type.Union(
  [Type.Literal('institution_secret'), Type.Literal('bootstrap_secret'), Type.Literal('oneroster_source')],
  { description: 'Which kind of secret authenticated the push; oneroster_source for a pull' },
);
export type RunCredential = Static<typeof RunCredential>;

export const RunTrigger = Type.Union([Type.Literal('push'), Type.Literal('pull')], {
  description: 'push: the SIS sent it through a feed; pull: the service fetched it from the OneRoster source',
});
export type RunTrigger = Static<typeof RunTrigger>;

export const RunSummary = Type.Object({
  id: Uuid(),
  kind: RunKind,
  credential: RunCredential,
  trigger: RunTrigger,
  cohort_id: Nullable(Uuid('Roster runs: the cohort pushed')),
  sections: Type.Array(Type.String(), { description: 'Enrolments runs: the sections the request carried' }),
  dry_run: Type.Boolean(),
  received: Type.Integer({ description: 'Rows received, all sections together' }),
  counts: Type.Record(Type.String(), Type.Unknown(), { description: 'The counts the response reported' }),
  error_count: Type.Integer(),
  started_at: DateTime('When the push was received'),
  finished_at: DateTime('When the push was processed and recorded; minus started_at, its duration'),
});
export type RunSummary = Static<typeof RunSummary>;

export const Run = Type.Intersect([
  RunSummary,
  Type.Object({
    errors: Type.Array(Type.Unknown(), {
      description:
        'Row errors as the response reported them (first 1000). Each has `row`, `code`, `message` and, when ' +
        'one is at fault, `field`; beside `row`, the keys the row was sent with (null when absent or unusable): ' +
        '`email` and `student_id_ext` for a roster error; `email`, `student_id_ext`, `unit_code` and ' +
        '`term_code` for an error of the enrolments section (which also has `section`). Runs recorded before ' +
        'the keys were added have none.',
    }),
    errors_truncated: Type.Boolean(),
    details: Type.Record(Type.String(), Type.Unknown()),
  }),
]);
export type Run = Static<typeof Run>;

export const DailyRuns = Type.Object({
  day: Type.String({ description: 'YYYY-MM-DD (UTC)' }),
  pushes: Type.Integer({ description: 'Real pushes and pulls (dry runs are counted in `dry_runs`)' }),
  created: Type.Number({
    description: 'Records the real pushes created (an enrolments push: all its sections)',
  }),
  updated: Type.Number({
    description: 'Records the real pushes changed (identical rows, counted as unchanged, are not)',
  }),
  errors: Type.Number({ description: 'Row errors the real pushes reported' }),
  dry_runs: Type.Integer({ description: 'Dry runs (they write nothing)' }),
  dry_run_errors: Type.Number({ description: 'Row errors the dry runs reported' }),
});
export type DailyRuns = Static<typeof DailyRuns>;

/** A push to record in the history. */
export interface NewRun {
  /** The run's id when the caller chose it beforehand (a requested OneRoster pull); else a new one. */
  id?: string;
  institutionId: string;
  kind: RunKind;
  credential: RunCredential;
  /** Default push. */
  trigger?: RunTrigger;
  cohortId?: string;
  sections?: string[];
  dryRun: boolean;
  received: number;
  counts: Record<string, unknown>;
  errors: unknown[];
  /** Anything else worth keeping (dry-run findings, departures). */
  details?: Record<string, unknown>;
  startedAt: Date;
  /**
   * When the push's work ended, by the same clock as startedAt. Without it, the database's now():
   * inside a push's transaction that is when the transaction began, not when it finished.
   */
  finishedAt?: Date;
}

export interface RunFilter {
  kind?: RunKind;
  /** First UTC day (YYYY-MM-DD) of runs to list, inclusive. */
  from?: string;
  /** Last UTC day (YYYY-MM-DD) of runs to list, inclusive. */
  to?: string;
  /** Only runs that reported row errors. */
  hasErrors?: boolean;
}
