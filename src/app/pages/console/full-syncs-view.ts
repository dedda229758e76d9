// What the full-sync pages show, built from the domain's own types by pure functions: the held
// and recent full syncs with their cohorts' names, a sync with a page of its departing students,
// and the confirmation of a decision naming the first of them.
import type { DepartingStudent, FullSyncListing } from '../../../domain/departures/schemas.ts';
import type { Cohort } from '../../../domain/institutions/schemas.ts';
import { when } from './forms.ts';
import type { Listing } from './listing.ts';

/** Departing students per page of a sync's page; the confirmation names the first few. */
export const PAGE_SIZE = 100;
export const NAMED_IN_CONFIRMATION = 20;

export const decisions = {
  confirm: {
    title: 'Depart these students?',
    message:
      'The students listed are marked departed (nothing is deleted). A student pushed again since the sync finished is skipped.',
    button: 'Confirm the departures',
    done: 'departures_confirmed',
  },
  discard: {
    title: 'Discard these departures?',
    message: 'Nobody is departed by this full sync. The next full sync decides again.',
    button: 'Discard the departures',
    done: 'departures_discarded',
  },
} as const;

export type DecisionAction = keyof typeof decisions;

/** Cohort names by id, to name each sync's cohort. */
export function cohortNames(cohorts: readonly Pick<Cohort, 'id' | 'name'>[]): Record<string, string> {
  return Object.fromEntries(cohorts.map((cohort) => [cohort.id, cohort.name]));
}

/** The full syncs page: the held ones waiting for a decision, then the most recent. */
export function fullSyncsView(
  held: readonly FullSyncListing[],
  recent: readonly FullSyncListing[],
  cohorts: Record<string, string>,
) {
  return { title: 'Full syncs', held, recent, cohorts, when };
}

/** A sync's page with a page of its departing students. */
export function fullSyncView(
  sync: FullSyncListing,
  students: Listing<DepartingStudent>,
  cohorts: Record<string, string>,
  self: string,
) {
  return {
    title: `Full sync ${sync.sync_id}`,
    sync,
    students,
    pageSize: PAGE_SIZE,
    self,
    cohort: cohorts[sync.cohort_id],
    when,
  };
}

/** The confirmation of a decision; confirming names the first students it departs. */
export function decisionConfirmation(
  action: DecisionAction,
  sync: FullSyncListing,
  first: readonly DepartingStudent[],
  self: string,
) {
  const words = decisions[action];
  const count = sync.departures ?? first.length;
  const more = count > first.length ? [`and ${count - first.length} more`] : [];
  return {
    title: words.title,
    message: `${words.message} Full sync ${sync.sync_id}: ${count} student${count === 1 ? '' : 's'}.`,
    details:
      action === 'confirm' ? [...first.map((s) => s.email || s.student_id_ext || s.id), ...more] : undefined,
    action: `${self}/${action}`,
    button: words.button,
    back: self,
  };
}
