// "Sync now" without holding the request: the pull is asked for (stored on the source's row,
// with the run id it will be recorded under) and the worker claims it like a due source, at
// once when it runs in the same process (woken through the process's pullRequested signal) and
// within its poll interval otherwise. A pull's status is read back by that run id: queued,
// running, then the run's outcome.

import { ApiError } from '../../../errors.ts';
import { uuidPattern } from '../../../lib/ids.ts';
import type { Deps } from '../../deps.ts';
import { refuseArchivedCohort } from '../../institutions/archiving.ts';
import { getRun } from '../../runs/runs.ts';
import type { PullMode } from './model.ts';
import { chooseMode } from './pull.ts';
import { insertPullRequest, lockRequestableSource, selectRequestedPull } from './queries.ts';

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

/** A pull not ended yet: its status without an outcome. */
const pending = (
  runId: string,
  mode: PullMode,
  status: 'queued' | 'running',
  requestedAt: Date,
): PullStatus => ({
  run_id: runId,
  mode,
  status,
  requested_at: requestedAt,
  error: null,
  error_code: null,
  sections: {},
  error_count: 0,
  notes: [],
});

/**
 * Asks for a pull of the institution's source and wakes this process's pull worker; 409
 * pull_in_progress while a pull of it is asked for or under way, 409 cohort_archived when the
 * cohort it pulls into is archived. The mode is chosen now (as the pull itself would: a delta
 * without a good pull before it is full), so the answer can say it.
 */
export async function requestPull(
  deps: Pick<Deps, 'db' | 'clock' | 'pullRequested'>,
  institutionId: string,
  mode?: PullMode,
): Promise<PullStatus> {
  const now = deps.clock.now();
  const stored = await deps.db.transaction(async (tx) => {
    const source = await lockRequestableSource(tx, institutionId, now);
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
    return insertPullRequest(tx, source.id, chooseMode(source, mode, now), now);
  });
  deps.pullRequested.notify();
  return pending(stored.requested_run_id, stored.requested_mode, 'queued', stored.requested_at);
}

/** A pull by its run id: queued or running (the source's row), else its run; 404 when neither. */
export async function pullStatus(
  deps: Pick<Deps, 'db' | 'clock'>,
  institutionId: string,
  runId: string,
): Promise<PullStatus> {
  const missing = () => new ApiError('not_found', { detail: `no pull ${runId} of this institution` });
  if (!uuidPattern.test(runId)) throw missing();
  const asked = await selectRequestedPull(deps.db, institutionId, runId, deps.clock.now());
  if (asked)
    return pending(runId, asked.requested_mode, asked.pulling ? 'running' : 'queued', asked.requested_at);
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
