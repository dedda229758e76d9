// An institution's OneRoster source: the provider (base URL, token URL, client id and the
// client secret, sealed with the keyring and never returned), the cohort that receives its
// students, the orgs and session types to take, the mapping's other choices, and a schedule.
// The URLs pass the outbound URL guard when saved (and again on every request of a pull).

import type { Db } from '../../../db/db.ts';
import { ApiError } from '../../../errors.ts';
import type { Keyring } from '../../../lib/encryption.ts';
import { checkOutboundUrl, type OutboundPolicy, type Resolver } from '../../../lib/outbound-url.ts';
import { refuseArchivedCohort } from '../../institutions/archiving.ts';
import {
  DEFAULT_MAPPING,
  PROGRAM_SOURCES,
  type ProgramSource,
  STUDENT_IDS,
  type StudentId,
} from '../mapping.ts';
import { DELETE_SQL, FAILING_SQL, GET_SQL, UPSERT_SQL } from './queries.ts';

export interface SourceMapping {
  term_types: string[];
  campus_org_types: string[];
  programs_from: ProgramSource;
  program_org_types: string[];
  student_id: StudentId;
}

export interface SourceSettings extends SourceMapping {
  base_url: string;
  token_url: string;
  client_id: string;
  /** Required when the source is created; omitted: the stored one is kept. */
  client_secret?: string;
  cohort_id: string;
  org_ids: string[];
  /** Minutes between scheduled (delta) pulls; null: on demand only. */
  pull_every_minutes: number | null;
  /** A scheduled pull is full when the last full one is older than this. */
  full_every_hours: number;
}

export interface OneRosterSource extends Omit<SourceSettings, 'client_secret'> {
  id: string;
  client_secret_set: true;
  next_pull_at: Date | null;
  delta_since: Date | null;
  last_full_at: Date | null;
  failure_count: number;
  last_error: string | null;
  /** The last failure's stable code (client.ts PullErrorCode); null while healthy. */
  last_error_code: string | null;
  failing_since: Date | null;
  last_pull_at: Date | null;
  last_success_at: Date | null;
  /** A pull is in flight. */
  pulling: boolean;
  /** A pull "Sync now" asked for that has not ended (requests.ts). */
  requested_pull: { run_id: string; mode: 'full' | 'delta'; requested_at: Date } | null;
  created_at: Date;
  updated_at: Date;
}

export interface FailingSource {
  institution_id: string;
  slug: string;
  name: string;
  last_error: string | null;
  failing_since: Date;
  failure_count: number;
  last_success_at: Date | null;
}

interface SourceRow
  extends Omit<OneRosterSource, keyof SourceMapping | 'client_secret_set' | 'requested_pull'> {
  institution_id: string;
  mapping: Partial<SourceMapping>;
  requested_run_id: string | null;
  requested_mode: 'full' | 'delta' | null;
  requested_at: Date | null;
}

export const DEFAULT_SOURCE_MAPPING: SourceMapping = {
  term_types: DEFAULT_MAPPING.termTypes,
  campus_org_types: DEFAULT_MAPPING.campusOrgTypes,
  programs_from: DEFAULT_MAPPING.programsFrom,
  program_org_types: DEFAULT_MAPPING.programOrgTypes,
  student_id: DEFAULT_MAPPING.studentId,
};

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

export function createOneRosterSources(deps: {
  db: Db;
  keyring: Keyring;
  policy: OutboundPolicy;
  resolve?: Resolver;
}) {
  const { db, keyring } = deps;
  const url = async (field: string, raw: string) => {
    const verdict = await checkOutboundUrl(raw, deps.policy, deps.resolve);
    if (!verdict.ok) throw new ApiError('url_not_allowed', { field, detail: verdict.reason });
    return verdict.url.toString();
  };

  async function get(institutionId: string): Promise<OneRosterSource> {
    const { rows } = await db.query<SourceRow>(GET_SQL, [institutionId]);
    if (!rows[0]) throw new ApiError('not_found', { detail: 'this institution has no OneRoster source' });
    return view(rows[0]);
  }

  return {
    get,

    /** The source, or undefined when none is configured. */
    async find(institutionId: string): Promise<OneRosterSource | undefined> {
      const { rows } = await db.query<SourceRow>(GET_SQL, [institutionId]);
      return rows[0] ? view(rows[0]) : undefined;
    },

    /** Creates or replaces the source; the secret is required the first time, kept when omitted later. */
    async put(institutionId: string, body: SourceSettings, now: Date): Promise<OneRosterSource> {
      const baseUrl = await url('base_url', body.base_url);
      const tokenUrl = await url('token_url', body.token_url);
      const { rows: cohort } = await db.query<{ id: string; name: string; archived_at: Date | null }>(
        'SELECT id, name, archived_at FROM cohorts WHERE id = $1 AND institution_id = $2',
        [body.cohort_id, institutionId],
      );
      if (!cohort[0])
        throw new ApiError('cohort_not_found', {
          field: 'cohort_id',
          detail: 'no such cohort in this institution',
        });
      refuseArchivedCohort(cohort[0]);
      const mapping: SourceMapping = {
        term_types: words('term_types', body.term_types, DEFAULT_SOURCE_MAPPING.term_types),
        campus_org_types: words(
          'campus_org_types',
          body.campus_org_types,
          DEFAULT_SOURCE_MAPPING.campus_org_types,
        ),
        programs_from: body.programs_from ?? DEFAULT_SOURCE_MAPPING.programs_from,
        program_org_types: words(
          'program_org_types',
          body.program_org_types,
          DEFAULT_SOURCE_MAPPING.program_org_types,
        ),
        student_id: body.student_id ?? DEFAULT_SOURCE_MAPPING.student_id,
      };
      if (!PROGRAM_SOURCES.includes(mapping.programs_from))
        invalid('programs_from', `programs_from is one of ${PROGRAM_SOURCES.join(', ')}`);
      if (!STUDENT_IDS.includes(mapping.student_id))
        invalid('student_id', `student_id is one of ${STUDENT_IDS.join(', ')}`);
      const every = body.pull_every_minutes ?? null;
      if (every !== null && !(Number.isInteger(every) && every >= 5 && every <= 10080))
        invalid(
          'pull_every_minutes',
          'pull_every_minutes is a whole number from 5 to 10080, or null (on demand only)',
        );
      const fullEvery = body.full_every_hours ?? 24;
      if (!(Number.isInteger(fullEvery) && fullEvery >= 1 && fullEvery <= 8760))
        invalid('full_every_hours', 'full_every_hours is a whole number from 1 to 8760');
      const existing = await this.find(institutionId);
      if (!existing && !body.client_secret)
        throw new ApiError('missing_field', {
          field: 'client_secret',
          detail: 'the client secret is needed the first time',
        });
      // The stored secret belongs to the token endpoint it was issued for: never sent to another.
      if (existing && existing.token_url !== tokenUrl && !body.client_secret)
        throw new ApiError('missing_field', {
          field: 'client_secret',
          detail:
            'the token URL changed: send the client secret again (the stored one is never sent to another URL)',
        });
      await db.query(UPSERT_SQL, [
        institutionId,
        baseUrl,
        tokenUrl,
        body.client_id,
        body.client_secret ? keyring.encrypt(body.client_secret) : null,
        body.cohort_id,
        words('org_ids', body.org_ids, []),
        JSON.stringify(mapping),
        every,
        fullEvery,
        every === null ? null : now,
      ]);
      return get(institutionId);
    },

    async remove(institutionId: string): Promise<void> {
      const { rowCount } = await db.query(DELETE_SQL, [institutionId]);
      if (!rowCount) throw new ApiError('not_found', { detail: 'this institution has no OneRoster source' });
    },

    /** Sources whose last pulls failed (all institutions', or one's), oldest failure first. */
    async failing(institutionId?: string): Promise<FailingSource[]> {
      const { rows } = await db.query<FailingSource>(FAILING_SQL, [institutionId ?? null]);
      return rows;
    },
  };
}

export type OneRosterSources = ReturnType<typeof createOneRosterSources>;
