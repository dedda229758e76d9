// The interface's suggested integration order (spec section 1) as a checklist with live status,
// read from what the institution's pushes actually did: (a) a real enrolments-feed call with
// taxonomy sections, (b) a roster dry run, (c) a real roster push, (d) the errors of the latest
// real push read (none left: its row errors are listed on its run page until a clean push), and
// (e) a nightly full push finished within the last 36 hours. A OneRoster pull applies taxonomy
// and roster together, so it counts for (a) and (c).
//
// Cost: one statement of five indexed lookups (sis_runs_institution_idx, full_syncs_key).
import type { Queryable } from '../../db/db.ts';

/** How recent the last finished full sync must be for a nightly push to count as seen. */
export const NIGHTLY_WITHIN_HOURS = 36;

export interface ChecklistStep {
  key: 'taxonomy' | 'roster_dry_run' | 'roster_pushed' | 'errors_read' | 'nightly_full_push';
  label: string;
  done: boolean;
  /** What the step's state means now, in a sentence. */
  detail: string;
  /** The run page of the latest push with errors, for step (d). */
  runId?: string;
}

interface Facts {
  taxonomy: boolean;
  roster_dry_run: boolean;
  roster_pushed: boolean;
  last_real_id: string | null;
  last_real_errors: number | null;
  last_full_sync: Date | null;
}

/** The checklist from the facts, at `now` (pure: tested without a database). */
export function checklistOf(facts: Facts, now: Date): ChecklistStep[] {
  const nightlyCutoff = now.getTime() - NIGHTLY_WITHIN_HOURS * 3_600_000;
  const nightly = facts.last_full_sync !== null && facts.last_full_sync.getTime() >= nightlyCutoff;
  const errors = facts.last_real_errors ?? 0;
  return [
    {
      key: 'taxonomy',
      label: 'Programs, campuses, terms and units pushed for real (the enrolments feed)',
      done: facts.taxonomy,
      detail: facts.taxonomy ? 'Done.' : 'No real push of taxonomy sections yet.',
    },
    {
      key: 'roster_dry_run',
      label: 'The roster tried as a dry run',
      done: facts.roster_dry_run,
      detail: facts.roster_dry_run ? 'Done.' : 'No dry run of the roster yet.',
    },
    {
      key: 'roster_pushed',
      label: 'The roster pushed for real, in pages of up to 5000',
      done: facts.roster_pushed,
      detail: facts.roster_pushed ? 'Done.' : 'No real roster push yet.',
    },
    {
      key: 'errors_read',
      label: "Each push's row errors read and fixed in the SIS",
      done: facts.last_real_id !== null && errors === 0,
      detail:
        facts.last_real_id === null
          ? 'No real push yet.'
          : errors === 0
            ? 'The latest real push had no row errors.'
            : `The latest real push had ${errors} row ${errors === 1 ? 'error' : 'errors'}: read ${errors === 1 ? 'it' : 'them'} on its run page.`,
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
    },
  ];
}

/** The institution's checklist as it stands at `now`. */
export async function integrationChecklist(db: Queryable, institutionId: string, now: Date) {
  const { rows } = await db.query<Facts>(
    `SELECT
       EXISTS (SELECT 1 FROM sis_runs WHERE institution_id = $1 AND NOT dry_run
               AND (kind = 'oneroster' OR (kind = 'enrolments' AND sections && ARRAY['programs', 'campuses', 'terms', 'units']))) AS taxonomy,
       EXISTS (SELECT 1 FROM sis_runs WHERE institution_id = $1 AND kind = 'roster' AND dry_run) AS roster_dry_run,
       EXISTS (SELECT 1 FROM sis_runs WHERE institution_id = $1 AND NOT dry_run AND kind IN ('roster', 'oneroster')) AS roster_pushed,
       (SELECT id FROM sis_runs WHERE institution_id = $1 AND NOT dry_run ORDER BY started_at DESC, id DESC LIMIT 1) AS last_real_id,
       (SELECT error_count FROM sis_runs WHERE institution_id = $1 AND NOT dry_run ORDER BY started_at DESC, id DESC LIMIT 1) AS last_real_errors,
       (SELECT max(finished_at) FROM full_syncs WHERE institution_id = $1 AND status <> 'open') AS last_full_sync`,
    [institutionId],
  );
  return checklistOf(rows[0] as Facts, now);
}
