// "Sync now" without holding the request: the pull is asked for (stored on the source's row,
// with the run id it will be recorded under) and the worker claims it like a due source, at
// once when it runs in the same process (woken) and within its poll interval otherwise. A
// pull's status is read back by that run id: queued, running, then the run's outcome.

import type { Db } from '../../../db/db.ts';
import { ApiError } from '../../../errors.ts';
import type { Clock } from '../../../lib/clock.ts';
import { uuidPattern } from '../../../lib/ids.ts';
import { refuseArchivedCohort } from '../../institutions/archiving.ts';
import { getRun } from '../../runs/runs.ts';
import { chooseMode, type PullMode } from './pull.ts';
import { REQUEST_LOCK_SQL, REQUEST_SQL } from './queries.ts';

/** A pull as the admin API answers it: asked for, under way, or done (the run's outcome). */
export interface PullStatus {
  run_id: string;
  mode: PullMode;
  status: 'queued' | 'running' | 'ok' | 'failed';
  requested_at: Date | null;
  error: string | null;
  error_code: string | null;
  sections: Record<string, unknown>;
  error_count: number;
  notes: string[];
  full_sync?: unknown;
}

const SECTIONS = ['programs', 'campuses', 'terms', 'units', 'roster', 'enrolments'];

const notFound = () => new ApiError('not_found', { detail: 'this institution has no OneRoster source' });

/**
 * Asks for a pull of the institution's source; 409 pull_in_progress while a pull of it is asked
 * for or under way, 409 cohort_archived when the cohort it pulls into is archived. The mode is chosen now (as the pull itself would: a delta without a good
 * pull before it is full), so the answer can say it.
 */
export async function requestPull(
  deps: { db: Db; clock: Clock },
  institutionId: string,
  mode?: PullMode,
): Promise<PullStatus> {
  const now = deps.clock.now();
  const stored = await deps.db.transaction(async (tx) => {
    const { rows } = await tx.query<{
      id: string;
      delta_since: Date | null;
      last_full_at: Date | null;
      full_every_hours: number;
      requested_run_id: string | null;
      pulling: boolean;
      cohort_id: string;
      cohort_name: string;
      cohort_archived_at: Date | null;
    }>(REQUEST_LOCK_SQL, [institutionId, now]);
    const source = rows[0];
    if (!source) throw notFound();
    // The worker would not pull it (docs/archiving.md): say so now rather than queue it forever.
    refuseArchivedCohort({
      id: source.cohort_id,
      name: source.cohort_name,
      archived_at: source.cohort_archived_at,
    });
    if (source.requested_run_id || source.pulling) {
      throw new ApiError('pull_in_progress', {
        detail: source.pulling
          ? 'a pull of this source is under way; try again when it ends'
          : `a pull of this source is already queued (${source.requested_run_id}); try again when it ends`,
      });
    }
    const { rows: requested } = await tx.query<{
      requested_run_id: string;
      requested_mode: PullMode;
      requested_at: Date;
    }>(REQUEST_SQL, [source.id, chooseMode(source, mode, now), now]);
    return requested[0];
  });
  return {
    run_id: stored.requested_run_id,
    mode: stored.requested_mode,
    status: 'queued',
    requested_at: stored.requested_at,
    error: null,
    error_code: null,
    sections: {},
    error_count: 0,
    notes: [],
  };
}

/** A pull by its run id: queued or running (the source's row), else its run; 404 when neither. */
export async function pullStatus(
  deps: { db: Db; clock: Clock },
  institutionId: string,
  runId: string,
): Promise<PullStatus> {
  const missing = () => new ApiError('not_found', { detail: `no pull ${runId} of this institution` });
  if (!uuidPattern.test(runId)) throw missing();
  const { rows } = await deps.db.query<{ requested_mode: PullMode; requested_at: Date; pulling: boolean }>(
    `SELECT requested_mode, requested_at, (lease_until IS NOT NULL AND lease_until > $3) AS pulling
     FROM oneroster_sources WHERE institution_id = $1 AND requested_run_id = $2`,
    [institutionId, runId, deps.clock.now()],
  );
  const asked = rows[0];
  if (asked) {
    return {
      run_id: runId,
      mode: asked.requested_mode,
      status: asked.pulling ? 'running' : 'queued',
      requested_at: asked.requested_at,
      error: null,
      error_code: null,
      sections: {},
      error_count: 0,
      notes: [],
    };
  }
  const run = await getRun(deps.db, institutionId, runId).catch(() => undefined);
  if (run?.kind !== 'oneroster') throw missing();
  const counts = run.counts as Record<string, unknown> & { mode?: PullMode; status?: 'ok' | 'failed' };
  const details = (run.details ?? {}) as {
    warnings?: string[];
    error?: string;
    error_code?: string;
    full_sync?: unknown;
  };
  return {
    run_id: run.id,
    mode: counts.mode ?? 'full',
    status: counts.status ?? 'ok',
    requested_at: null,
    error: details.error ?? null,
    error_code: details.error_code ?? null,
    sections: Object.fromEntries(SECTIONS.filter((s) => s in counts).map((s) => [s, counts[s]])),
    error_count: run.error_count,
    notes: details.warnings ?? [],
    ...(details.full_sync ? { full_sync: details.full_sync } : {}),
  };
}
