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
import { loadMemory, memoryPageFor, storeMemory } from '../memory.ts';
import { mapOneRoster } from '../plan.ts';
import { type Applied, applyMapped } from './apply.ts';
import {
  createOneRosterClient,
  type PullErrorCode,
  PullFailure,
  type PullLimits,
  pullLimitsOf,
} from './client.ts';
import { fetchAll, keepOrgs, PULLED, sourceOf } from './fetch.ts';
import type { ClaimedSource, PullMode } from './model.ts';
import { createPageParser } from './page-parser.ts';
import {
  claimDueSourceRows,
  claimInstitutionSource,
  finishPull,
  selectPullInstitution,
  selectSourceCohort,
} from './queries.ts';
import { DEFAULT_SOURCE_MAPPING } from './sources.ts';

export type { ClaimedSource, PullMode };

/**
 * What a pull uses: the process's database, clock, keyring, outbound policy and configuration
 * (the feeds' departure threshold), the signal its worker listens to, the pull's limits (src/runtime.ts pullDepsOf), and what a
 * test replaces: DNS, the waits between retries and their jitter.
 */
export interface PullDeps
  extends Pick<Deps, 'db' | 'clock' | 'keyring' | 'policy' | 'config' | 'pullRequested'> {
  limits: PullLimits;
  lookup?: typeof dns.lookup;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

/** What a OneRoster pull test changes: limits, waits and DNS (everything else is the process's). */
export type PullOverrides = Partial<Pick<PullDeps, 'limits' | 'sleep' | 'random' | 'lookup'>>;

/** What a pull runs on: the process's dependencies and the pull's limits from its configuration. */
export function pullDepsOf(
  deps: Pick<Deps, 'db' | 'clock' | 'keyring' | 'policy' | 'config' | 'pullRequested'>,
  overrides: PullOverrides = {},
): PullDeps {
  const { db, clock, keyring, policy, config, pullRequested } = deps;
  const limits = pullLimitsOf(config.oneRosterPull);
  return { db, clock, keyring, policy, config, pullRequested, limits, ...overrides };
}

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

const leaseFrom = (now: Date) => new Date(now.getTime() + LEASE_MS);

export async function claimSource(deps: PullDeps, institutionId: string): Promise<ClaimedSource | null> {
  const now = deps.clock.now();
  return (await claimInstitutionSource(deps.db, institutionId, now, leaseFrom(now))) ?? null;
}

export async function claimDueSources(deps: PullDeps, limit: number, institutionIds?: string[]) {
  const now = deps.clock.now();
  return claimDueSourceRows(deps.db, now, limit, leaseFrom(now), institutionIds ?? null);
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

/** What reading, mapping and applying a source came to: applied, or why not. */
interface PullWork {
  applied?: Applied;
  /** Records read per collection. */
  fetched: Record<string, number>;
  error: string | null;
  errorCode: PullErrorCode | null;
}

/** The source's client secret, or the failure a pull ends with when it cannot be unsealed. */
function secretOf(deps: PullDeps, source: ClaimedSource): { secret: string } | { failure: PullFailure } {
  try {
    return { secret: deps.keyring.decrypt(source.client_secret_encrypted) };
  } catch (caught) {
    const reason = `the client secret cannot be decrypted (${(caught as Error).message}): enter it again`;
    return { failure: new PullFailure(reason, null, 'secret_unreadable') };
  }
}

/**
 * Reads the provider whole, maps it and applies it, then keeps what it placed (memory.ts). A
 * provider that fails (nothing was applied) or applying that fails part-way (the database) is
 * an outcome with its reason, not a throw.
 */
async function fetchAndApply(
  deps: PullDeps,
  source: ClaimedSource,
  into: { institution: { id: string; slug: string }; mode: PullMode },
  onRetry: (what: string) => void,
): Promise<PullWork> {
  const { institution, mode } = into;
  const work: PullWork = { fetched: {}, error: null, errorCode: null };
  const secret = secretOf(deps, source);
  const parser = createPageParser(deps.limits);
  const client = createOneRosterClient(
    {
      baseUrl: source.base_url,
      tokenUrl: source.token_url,
      clientId: source.client_id,
      clientSecret: 'secret' in secret ? secret.secret : '',
    },
    {
      policy: deps.policy,
      limits: deps.limits,
      lookup: deps.lookup,
      sleep: deps.sleep,
      random: deps.random,
      onRetry,
      parsePage: parser.parse,
    },
  );
  try {
    if ('failure' in secret) throw secret.failure;
    const pulled = keepOrgs(
      await fetchAll(client, mode === 'delta' ? (source.delta_since ?? undefined) : undefined),
      source.org_ids,
    );
    work.fetched = Object.fromEntries(PULLED.map((name) => [name, pulled[name].length]));
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
    work.applied = await applyMapped(deps, institution, source.cohort_id, mapped, { full: mode === 'full' });
    const page = memoryPageFor(deps.db.kind);
    await storeMemory(deps.db, source.institution_id, mapped.changes(), deps.clock.now(), page);
  } catch (caught) {
    work.error =
      caught instanceof PullFailure
        ? caught.message
        : `the pull could not be applied: ${String((caught as Error)?.message ?? caught).slice(0, 300)}`;
    work.errorCode = caught instanceof PullFailure ? caught.code : 'apply_failed';
  } finally {
    await client.close();
    await parser.close();
  }
  return work;
}

/** The pull in the push history: one run of kind oneroster, trigger pull. */
function recordPull(
  deps: PullDeps,
  source: ClaimedSource,
  pull: { mode: PullMode; trigger: 'schedule' | 'manual'; startedAt: Date; notes: string[] },
  work: PullWork,
): Promise<string> {
  const { applied, error, errorCode } = work;
  const sections = applied?.sections ?? {};
  const total = (key: 'created' | 'updated' | 'received') =>
    Object.values(sections).reduce((sum, report) => sum + (report?.[key] ?? 0), 0);
  const failure = error ? { error, error_code: errorCode } : {};
  return recordRun(deps.db, {
    id: source.requested_run_id ?? undefined,
    institutionId: source.institution_id,
    kind: 'oneroster',
    credential: 'oneroster_source',
    trigger: 'pull',
    cohortId: source.cohort_id,
    sections: Object.keys(sections),
    dryRun: false,
    received: total('received'),
    counts: {
      mode: pull.mode,
      status: error ? 'failed' : 'ok',
      ...failure,
      created: total('created'),
      updated: total('updated'),
      fetched: work.fetched,
      ...sections,
    },
    errors: applied?.errors ?? [],
    details: {
      source_id: source.id,
      schedule: pull.trigger,
      // Shown as the run's warnings (the console's run page, its CSV).
      warnings: pull.notes,
      ...failure,
      ...(applied?.full_sync ? { full_sync: applied.full_sync } : {}),
    },
    startedAt: pull.startedAt,
  });
}

/** When a scheduled source is due again: its interval, doubled for each failure in a row (a day at most). */
function nextPullAt(source: ClaimedSource, ok: boolean, finishedAt: Date): Date | null {
  if (!source.pull_every_minutes) return null;
  const failures = ok ? 0 : source.failure_count + 1;
  const minutes = Math.min(24 * 60, source.pull_every_minutes * 2 ** Math.min(failures, 6));
  return new Date(finishedAt.getTime() + minutes * 60_000);
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
  const institution = await selectPullInstitution(deps.db, source.institution_id);
  const work = await fetchAndApply(deps, source, { institution, mode }, (r) => retries.push(r));
  const finishedAt = deps.clock.now();
  const { applied, error, errorCode } = work;
  const notes = [...(applied?.notes ?? []), ...retries.slice(0, 20)];
  const runId = await recordPull(deps, source, { mode, trigger: options.trigger, startedAt, notes }, work);
  const ok = error === null;
  await finishPull(deps.db, {
    sourceId: source.id,
    leaseToken: source.lease_token,
    finishedAt,
    ok,
    error,
    errorCode,
    startedAt,
    full: mode === 'full',
    nextPullAt: nextPullAt(source, ok, finishedAt),
  });
  return {
    run_id: runId,
    mode,
    status: ok ? 'ok' : 'failed',
    error,
    error_code: errorCode,
    sections: applied?.sections ?? {},
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
    const cohort = await selectSourceCohort(deps.db, institutionId);
    if (!cohort) throw new ApiError('not_found', { detail: 'this institution has no OneRoster source' });
    refuseArchivedCohort(cohort);
    throw new ApiError('pull_in_progress', {
      detail: 'a pull of this source is under way or queued; try again when it ends',
    });
  }
  return pullSource(deps, claimed, { mode, trigger: 'manual' });
}
