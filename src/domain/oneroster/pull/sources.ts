// An institution's OneRoster source: the provider (base URL, token URL, client id and the
// client secret, sealed with the keyring and never returned), the cohort that receives its
// students, the orgs and session types to take, the mapping's other choices, and a schedule.
// The URLs pass the outbound URL guard when saved (and again on every request of a pull).

import type { Db } from '../../../db/db.ts';
import { ApiError } from '../../../errors.ts';
import { checkOutboundUrl, type OutboundPolicy } from '../../../lib/outbound-url.ts';
import type { Deps } from '../../deps.ts';
import { refuseArchivedCohort } from '../../institutions/archiving.ts';
import { selectCohort } from '../../institutions/queries.ts';
import { DEFAULT_MAPPING, PROGRAM_SOURCES, STUDENT_IDS } from '../mapping.ts';
import type { FailingSource, OneRosterSource, SourceMapping, SourceRow, SourceSettings } from './model.ts';
import { deleteSource, selectFailingSources, selectSource, upsertSource } from './queries.ts';

export type { FailingSource, OneRosterSource, SourceMapping, SourceSettings };

export const DEFAULT_SOURCE_MAPPING: SourceMapping = {
  term_types: DEFAULT_MAPPING.termTypes,
  campus_org_types: DEFAULT_MAPPING.campusOrgTypes,
  programs_from: DEFAULT_MAPPING.programsFrom,
  program_org_types: DEFAULT_MAPPING.programOrgTypes,
  student_id: DEFAULT_MAPPING.studentId,
};

const noSource = () => new ApiError('not_found', { detail: 'this institution has no OneRoster source' });

function view(row: SourceRow): OneRosterSource {
  const { mapping, institution_id: _, requested_run_id, requested_mode, requested_at, ...rest } = row;
  const requested_pull =
    requested_run_id && requested_mode && requested_at
      ? { run_id: requested_run_id, mode: requested_mode, requested_at }
      : null;
  return { ...rest, ...DEFAULT_SOURCE_MAPPING, ...mapping, client_secret_set: true, requested_pull };
}

function invalid(field: string, detail: string): never {
  throw new ApiError('invalid_field', { field, detail });
}

function words(field: string, value: unknown, fallback: string[]): string[] {
  if (value === undefined) return fallback;
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string' || !v.trim() || v.length > 200))
    invalid(field, `${field} is a list of names`);
  return (value as string[]).map((v) => v.trim());
}

/** The institution's source; 404 when none is configured. */
export async function getSource(db: Db, institutionId: string): Promise<OneRosterSource> {
  const row = await selectSource(db, institutionId);
  if (!row) throw noSource();
  return view(row);
}

/** The source, or undefined when none is configured. */
export async function findSource(db: Db, institutionId: string): Promise<OneRosterSource | undefined> {
  const row = await selectSource(db, institutionId);
  return row ? view(row) : undefined;
}

/** A URL the outbound guard allows, normalised; 400 url_not_allowed naming the field otherwise. */
async function allowedUrl(policy: OutboundPolicy, field: string, raw: string): Promise<string> {
  const verdict = await checkOutboundUrl(raw, policy);
  if (!verdict.ok) throw new ApiError('url_not_allowed', { field, detail: verdict.reason });
  return verdict.url.toString();
}

/** The mapping's choices, each checked, the defaults for those not given. */
function mappingOf(body: SourceSettings): SourceMapping {
  const defaults = DEFAULT_SOURCE_MAPPING;
  const mapping: SourceMapping = {
    term_types: words('term_types', body.term_types, defaults.term_types),
    campus_org_types: words('campus_org_types', body.campus_org_types, defaults.campus_org_types),
    programs_from: body.programs_from ?? defaults.programs_from,
    program_org_types: words('program_org_types', body.program_org_types, defaults.program_org_types),
    student_id: body.student_id ?? defaults.student_id,
  };
  if (!PROGRAM_SOURCES.includes(mapping.programs_from))
    invalid('programs_from', `programs_from is one of ${PROGRAM_SOURCES.join(', ')}`);
  if (!STUDENT_IDS.includes(mapping.student_id))
    invalid('student_id', `student_id is one of ${STUDENT_IDS.join(', ')}`);
  return mapping;
}

/** The schedule: minutes between pulls (null: on demand only) and hours between full ones. */
function scheduleOf(body: SourceSettings): { every: number | null; fullEvery: number } {
  const every = body.pull_every_minutes ?? null;
  if (every !== null && !(Number.isInteger(every) && every >= 5 && every <= 10080))
    invalid(
      'pull_every_minutes',
      'pull_every_minutes is a whole number from 5 to 10080, or null (on demand only)',
    );
  const fullEvery = body.full_every_hours ?? 24;
  if (!(Number.isInteger(fullEvery) && fullEvery >= 1 && fullEvery <= 8760))
    invalid('full_every_hours', 'full_every_hours is a whole number from 1 to 8760');
  return { every, fullEvery };
}

/** 400 unless a secret is sent the first time, and again whenever the token URL changes. */
function checkSecret(
  existing: OneRosterSource | undefined,
  tokenUrl: string,
  secret: string | undefined,
): void {
  if (secret) return;
  if (!existing)
    throw new ApiError('missing_field', {
      field: 'client_secret',
      detail: 'the client secret is needed the first time',
    });
  // The stored secret belongs to the token endpoint it was issued for: never sent to another.
  if (existing.token_url !== tokenUrl)
    throw new ApiError('missing_field', {
      field: 'client_secret',
      detail:
        'the token URL changed: send the client secret again (the stored one is never sent to another URL)',
    });
}

/** Creates or replaces the source; the secret is required the first time, kept when omitted later. */
export async function putSource(
  deps: Pick<Deps, 'db' | 'keyring' | 'policy'>,
  institutionId: string,
  body: SourceSettings,
  now: Date,
): Promise<OneRosterSource> {
  const { db, keyring } = deps;
  const baseUrl = await allowedUrl(deps.policy, 'base_url', body.base_url);
  const tokenUrl = await allowedUrl(deps.policy, 'token_url', body.token_url);
  const cohort = await selectCohort(db, institutionId, body.cohort_id);
  if (!cohort)
    throw new ApiError('cohort_not_found', {
      field: 'cohort_id',
      detail: 'no such cohort in this institution',
    });
  refuseArchivedCohort(cohort);
  const mapping = mappingOf(body);
  const { every, fullEvery } = scheduleOf(body);
  checkSecret(await findSource(db, institutionId), tokenUrl, body.client_secret);
  await upsertSource(db, {
    institutionId,
    baseUrl,
    tokenUrl,
    clientId: body.client_id,
    clientSecretEncrypted: body.client_secret ? keyring.encrypt(body.client_secret) : null,
    cohortId: body.cohort_id,
    orgIds: words('org_ids', body.org_ids, []),
    mapping,
    pullEveryMinutes: every,
    fullEveryHours: fullEvery,
    nextPullAt: every === null ? null : now,
  });
  return getSource(db, institutionId);
}

/** Removes the institution's source (its students and pulls stay); 404 when it has none. */
export async function removeSource(db: Db, institutionId: string): Promise<void> {
  if (!(await deleteSource(db, institutionId))) throw noSource();
}

/** Sources whose last pulls failed (all institutions', or one's), oldest failure first. */
export function listFailingSources(db: Db, institutionId?: string): Promise<FailingSource[]> {
  return selectFailingSources(db, institutionId);
}
