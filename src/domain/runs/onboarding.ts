// The interface's suggested integration order (spec section 1) as a checklist with live status,
// read from what the institution's pushes actually did: (a) a real enrolments-feed call with
// taxonomy sections, (b) a roster dry run, (c) a real roster push, (d) the row errors of the
// latest real roster push read and fixed: done when that push had none (a push with errors links
// to its run page and stays to do until a later real roster push is clean; opening the page is
// not recorded, which would need a column of its own), and (e) a nightly full push finished
// within the last 36 hours. A OneRoster pull applies taxonomy and roster together, so it counts
// for (a), (c) and (d). Each step says in `means` when it is done.
//
// Cost: one statement of five indexed lookups (sis_runs_institution_idx, full_syncs_key).
import type { Queryable } from '../../db/db.ts';
import { type ChecklistFacts, checklistFacts } from './queries.ts';

/** How recent the last finished full sync must be for a nightly push to count as seen. */
export const NIGHTLY_WITHIN_HOURS = 36;

export interface ChecklistStep {
  key: 'taxonomy' | 'roster_dry_run' | 'roster_pushed' | 'errors_read' | 'nightly_full_push';
  label: string;
  done: boolean;
  /** What the step's state means now, in a sentence. */
  detail: string;
  /** When the step counts as done, in a sentence the page shows under it. */
  means: string;
  /** The run page of the latest push with errors, for step (d). */
  runId?: string;
}

/** The checklist from the facts, at `now` (pure: tested without a database). */
export function checklistOf(facts: ChecklistFacts, now: Date): ChecklistStep[] {
  const nightlyCutoff = now.getTime() - NIGHTLY_WITHIN_HOURS * 3_600_000;
  const nightly = facts.last_full_sync !== null && facts.last_full_sync.getTime() >= nightlyCutoff;
  const errors = facts.last_real_errors ?? 0;
  return [
    {
      key: 'taxonomy',
      label: 'Programs, campuses, terms and units pushed for real (the enrolments feed)',
      done: facts.taxonomy,
      detail: facts.taxonomy ? 'Done.' : 'No real push of taxonomy sections yet.',
      means:
        'Done once a real (not dry-run) enrolments push has sent programs, campuses, terms or units, or a OneRoster pull has run.',
    },
    {
      key: 'roster_dry_run',
      label: 'The roster tried as a dry run',
      done: facts.roster_dry_run,
      detail: facts.roster_dry_run ? 'Done.' : 'No dry run of the roster yet.',
      means:
        'Done once a roster push was sent with dry_run (--dry-run): it changes nothing and answers each row’s errors.',
    },
    {
      key: 'roster_pushed',
      label: 'The roster pushed for real, in pages of up to 5000',
      done: facts.roster_pushed,
      detail: facts.roster_pushed ? 'Done.' : 'No real roster push yet.',
      means: 'Done once a roster push without dry_run, or a OneRoster pull, has run.',
    },
    {
      key: 'errors_read',
      label: 'The roster’s row errors read and fixed in the SIS',
      done: facts.last_real_id !== null && errors === 0,
      detail:
        facts.last_real_id === null
          ? 'No real roster push yet.'
          : errors === 0
            ? 'The latest real roster push had no row errors.'
            : `The latest real roster push had ${errors} row ${errors === 1 ? 'error' : 'errors'}: read ${errors === 1 ? 'it' : 'them'} on its run page, fix ${errors === 1 ? 'it' : 'them'} in the SIS and push again.`,
      means:
        'Done when the latest real (not dry-run) roster push, or OneRoster pull, had no row errors. A push with errors stays to do until a later real push is clean; opening its run page does not tick it.',
      runId: errors > 0 && facts.last_real_id ? facts.last_real_id : undefined,
    },
    {
      key: 'nightly_full_push',
      label: `A nightly full push (a full sync) seen in the last ${NIGHTLY_WITHIN_HOURS} hours`,
      done: nightly,
      detail: nightly
        ? 'Done.'
        : facts.last_full_sync
          ? 'The last full sync finished more than 36 hours ago.'
          : 'No full sync yet: schedule a nightly full push (ssp push roster --full-sync).',
      means: `Done while a roster full sync (every page, the last one marked final) finished within the last ${NIGHTLY_WITHIN_HOURS} hours.`,
    },
  ];
}

/** The institution's checklist as it stands at `now`. */
export async function integrationChecklist(db: Queryable, institutionId: string, now: Date) {
  return checklistOf(await checklistFacts(db, institutionId), now);
}
