// One pull of an institution's OneRoster source, start to end: claim it (a lease: one pull of
// a source at a time, across any number of workers), read the provider whole (fetch.ts: a
// provider failing half-way changes nothing), map it (the mapping `ssp push oneroster` uses),
// apply it (apply.ts), and record it: one run in the push history (kind oneroster, trigger
// pull), and the source's health, memory and next due time.

import type dns from 'node:dns';
import { ApiError } from '../../../errors.ts';
import type { Deps } from '../../deps.ts';
import { refuseArchivedCohort } from '../../institutions/archiving.ts';
import { recordRun } from '../../runs/runs.ts';
import type { OneRosterMapping } from '../mapping.ts';
import { loadMemory, storeMemory } from '../memory.ts';
import { mapOneRoster } from '../plan.ts';
import { type Applied, applyMapped } from './apply.ts';
import { createOneRosterClient, type PullErrorCode, PullFailure, type PullLimits } from './client.ts';
import { fetchAll, keepOrgs, PULLED, sourceOf } from './fetch.ts';
import { createPageParser } from './page-parser.ts';
import { CLAIM_DUE_SQL, CLAIM_SQL, FINISH_SQL, SOURCE_COHORT_SQL } from './queries.ts';
import { DEFAULT_SOURCE_MAPPING, type SourceMapping } from './sources.ts';

/**
 * What a pull uses: the process's database, clock, keyring, outbound policy and configuration
 * (the feeds' departure threshold), the pull's limits (src/runtime.ts pullDepsOf), and what a
 * test replaces: DNS, the waits between retries and their jitter.
 */
export interface PullDeps extends Pick<Deps, 'db' | 'clock' | 'keyring' | 'policy' | 'config'> {
  limits: PullLimits;
  lookup?: typeof dns.lookup;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

export interface ClaimedSource {
  id: string;
  institution_id: string;
  base_url: string;
  token_url: string;
  client_id: string;
  client_secret_encrypted: string;
  cohort_id: string;
  org_ids: string[];
  mapping: Partial<SourceMapping>;
  pull_every_minutes: number | null;
  full_every_hours: number;
  delta_since: Date | null;
  last_full_at: Date | null;
  known: unknown;
  failure_count: number;
  lease_token: string;
  /** A pull asked for ("Sync now", requests.ts): the run id to record it under, and its mode. */
  requested_run_id: string | null;
  requested_mode: PullMode | null;
}

export type PullMode = 'full' | 'delta';

export interface PullOutcome {
  run_id: string;
  mode: PullMode;
  status: 'ok' | 'failed';
  error: string | null;
  /** Why it failed, stable for programs (client.ts PullErrorCode); null when it did not. */
  error_code: PullErrorCode | null;
  sections: Applied['sections'];
  error_count: number;
  notes: string[];
  full_sync?: unknown;
}

/** A pull holds its source this long at most; a worker that dies lets the lease lapse. */
const LEASE_MS = 60 * 60_000;

export async function claimSource(deps: PullDeps, institutionId: string): Promise<ClaimedSource | null> {
  const now = deps.clock.now();
  const { rows } = await deps.db.query<ClaimedSource>(CLAIM_SQL, [
    institutionId,
    now,
    new Date(now.getTime() + LEASE_MS),
  ]);
  return rows[0] ?? null;
}

export async function claimDueSources(deps: PullDeps, limit: number, institutionIds?: string[]) {
  const now = deps.clock.now();
  const { rows } = await deps.db.query<ClaimedSource>(CLAIM_DUE_SQL, [
    now,
    limit,
    new Date(now.getTime() + LEASE_MS),
    institutionIds ?? null,
  ]);
  return rows;
}

type ModeFacts = Pick<ClaimedSource, 'delta_since' | 'last_full_at' | 'full_every_hours'>;

/** A scheduled pull is full when no full pull succeeded within full_every_hours (or never). */
export function scheduledMode(source: ModeFacts, now: Date): PullMode {
  if (!source.delta_since || !source.last_full_at) return 'full';
  return now.getTime() - source.last_full_at.getTime() >= source.full_every_hours * 3_600_000
    ? 'full'
    : 'delta';
}

/** The mode of a pull: the one asked for (a delta without a good pull before it is full), else the schedule's. */
export function chooseMode(source: ModeFacts, asked: PullMode | undefined, now: Date): PullMode {
  if (asked === 'delta' && !source.delta_since) return 'full';
  return asked ?? scheduledMode(source, now);
}

function mappingOf(source: ClaimedSource): OneRosterMapping {
  const m = { ...DEFAULT_SOURCE_MAPPING, ...source.mapping };
  return {
    campusOrgTypes: m.campus_org_types,
    programsFrom: m.programs_from,
    programOrgTypes: m.program_org_types,
    termTypes: m.term_types,
    studentRoles: ['student'],
    studentId: m.student_id,
    cohortForOrg: new Map(),
    cohort: source.cohort_id,
  };
}

/** Pulls a claimed source and records the outcome; a failure of the provider is an outcome, not a throw. */
export async function pullSource(
  deps: PullDeps,
  source: ClaimedSource,
  options: { mode?: PullMode; trigger: 'schedule' | 'manual' },
): Promise<PullOutcome> {
  const startedAt = deps.clock.now();
  const mode = chooseMode(source, options.mode ?? source.requested_mode ?? undefined, startedAt);
  const retries: string[] = [];
  const { rows: institutions } = await deps.db.query<{ id: string; slug: string }>(
    'SELECT id, slug FROM institutions WHERE id = $1',
    [source.institution_id],
  );
  const institution = institutions[0];
  let applied: Applied | undefined;
  let error: string | null = null;
  let errorCode: PullErrorCode | null = null;
  let fetched: Record<string, number> = {};
  let clientSecret = '';
  try {
    clientSecret = deps.keyring.decrypt(source.client_secret_encrypted);
  } catch (caught) {
    error = `the client secret cannot be decrypted (${(caught as Error).message}): enter it again`;
    errorCode = 'secret_unreadable';
  }
  const parser = createPageParser(deps.limits);
  const client = createOneRosterClient(
    {
      baseUrl: source.base_url,
      tokenUrl: source.token_url,
      clientId: source.client_id,
      clientSecret,
    },
    {
      policy: deps.policy,
      limits: deps.limits,
      lookup: deps.lookup,
      sleep: deps.sleep,
      random: deps.random,
      onRetry: (r) => retries.push(r),
      parsePage: parser.parse,
    },
  );
  try {
    if (error) throw new PullFailure(error, null, 'secret_unreadable');
    const pulled = keepOrgs(
      await fetchAll(client, mode === 'delta' ? (source.delta_since ?? undefined) : undefined),
      source.org_ids,
    );
    fetched = Object.fromEntries(PULLED.map((name) => [name, pulled[name].length]));
    const mapped = await mapOneRoster(
      {
        orgs: sourceOf(pulled.orgs),
        academicSessions: sourceOf(pulled.academicSessions),
        courses: sourceOf(pulled.courses),
        classes: sourceOf(pulled.classes),
        users: sourceOf(pulled.users),
        roles: sourceOf(pulled.roles),
        enrollments: sourceOf(pulled.enrollments),
      },
      mappingOf(source),
      // An API's user carries all of its roles: a user without a student role holds none.
      // What earlier pulls and pushes placed (memory.ts): the service's, whoever sent them.
      { rolesInUsers: false, rolesComplete: true, known: await loadMemory(deps.db, source.institution_id) },
    );
    applied = await applyMapped(deps, institution, source.cohort_id, mapped, { full: mode === 'full' });
    await storeMemory(deps.db, source.institution_id, mapped.changes(), deps.clock.now());
  } catch (caught) {
    // The provider failed (nothing was applied), or applying failed part-way (the database):
    // either way the pull is recorded as failed and the lease released.
    error =
      caught instanceof PullFailure
        ? caught.message
        : `the pull could not be applied: ${String((caught as Error)?.message ?? caught).slice(0, 300)}`;
    errorCode = caught instanceof PullFailure ? caught.code : 'apply_failed';
  } finally {
    await client.close();
    await parser.close();
  }
  const finishedAt = deps.clock.now();
  const sections = applied?.sections ?? {};
  const total = (key: 'created' | 'updated') =>
    Object.values(sections).reduce((sum, report) => sum + (report?.[key] ?? 0), 0);
  const notes = [...(applied?.notes ?? []), ...retries.slice(0, 20)];
  const runId = await recordRun(deps.db, {
    id: source.requested_run_id ?? undefined,
    institutionId: source.institution_id,
    kind: 'oneroster',
    credential: 'oneroster_source',
    trigger: 'pull',
    cohortId: source.cohort_id,
    sections: Object.keys(sections),
    dryRun: false,
    received: Object.values(sections).reduce((sum, report) => sum + (report?.received ?? 0), 0),
    counts: {
      mode,
      status: error ? 'failed' : 'ok',
      ...(error ? { error, error_code: errorCode } : {}),
      created: total('created'),
      updated: total('updated'),
      fetched,
      ...sections,
    },
    errors: applied?.errors ?? [],
    details: {
      source_id: source.id,
      schedule: options.trigger,
      // Shown as the run's warnings (the console's run page, its CSV).
      warnings: notes,
      ...(error ? { error, error_code: errorCode } : {}),
      ...(applied?.full_sync ? { full_sync: applied.full_sync } : {}),
    },
    startedAt,
  });
  const ok = error === null;
  const failures = ok ? 0 : source.failure_count + 1;
  const next = source.pull_every_minutes
    ? new Date(
        finishedAt.getTime() +
          Math.min(24 * 60, source.pull_every_minutes * 2 ** Math.min(failures, 6)) * 60_000,
      )
    : null;
  await deps.db.query(FINISH_SQL, [
    source.id,
    source.lease_token,
    finishedAt,
    ok,
    error,
    startedAt,
    mode === 'full',
    // The memory lives in oneroster_memory now (migration 0071); the column stays empty.
    '{}',
    next,
    errorCode,
  ]);
  return {
    run_id: runId,
    mode,
    status: ok ? 'ok' : 'failed',
    error,
    error_code: errorCode,
    sections,
    error_count: applied?.errors.length ?? 0,
    notes,
    ...(applied?.full_sync ? { full_sync: applied.full_sync } : {}),
  };
}

/**
 * A pull now, in the caller: claims the institution's source and pulls it; 409 pull_in_progress
 * while a pull of it runs or is queued, 409 cohort_archived when its cohort is archived. (Sync now
 * with `Prefer: respond-async`, and the console's, asks the worker instead: requests.ts.)
 */
export async function pullNow(deps: PullDeps, institutionId: string, mode?: PullMode): Promise<PullOutcome> {
  const claimed = await claimSource(deps, institutionId);
  if (!claimed) {
    const { rows } = await deps.db.query<{ id: string; name: string; archived_at: Date | null }>(
      SOURCE_COHORT_SQL,
      [institutionId],
    );
    if (!rows[0]) throw new ApiError('not_found', { detail: 'this institution has no OneRoster source' });
    refuseArchivedCohort(rows[0]);
    throw new ApiError('pull_in_progress', {
      detail: 'a pull of this source is under way or queued; try again when it ends',
    });
  }
  return pullSource(deps, claimed, { mode, trigger: 'manual' });
}
