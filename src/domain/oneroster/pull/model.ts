// The OneRoster source and its pulls as stored (migration 0030 and later): the settings an admin
// gives, the source as the admin API answers it, the row a pull claims, and the failing sources
// the health page lists. Imports nothing from its siblings, so they all can speak of these.
import type { ProgramSource, StudentId } from '../mapping.ts';

export type PullMode = 'full' | 'delta';

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
  requested_pull: { run_id: string; mode: PullMode; requested_at: Date } | null;
  created_at: Date;
  updated_at: Date;
}

/** The source's row as read for the admin API (sources.ts shapes it). */
export interface SourceRow
  extends Omit<OneRosterSource, keyof SourceMapping | 'client_secret_set' | 'requested_pull'> {
  institution_id: string;
  mapping: Partial<SourceMapping>;
  requested_run_id: string | null;
  requested_mode: PullMode | null;
  requested_at: Date | null;
}

/** What a source stores, as sources.ts has checked it. */
export interface SourceWrite {
  institutionId: string;
  baseUrl: string;
  tokenUrl: string;
  clientId: string;
  /** Sealed with the keyring; null keeps the stored one. */
  clientSecretEncrypted: string | null;
  cohortId: string;
  orgIds: string[];
  mapping: SourceMapping;
  pullEveryMinutes: number | null;
  fullEveryHours: number;
  nextPullAt: Date | null;
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

/** A cohort as a source's checks see it (archived cohorts are neither configured nor pulled). */
export interface SourceCohort {
  id: string;
  name: string;
  archived_at: Date | null;
}

/** A source claimed for a pull: its settings, the sealed secret and the memory, with the lease. */
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

/** A pull's end as the source records it (health, schedule, the lease released). */
export interface PullFinish {
  sourceId: string;
  leaseToken: string;
  finishedAt: Date;
  ok: boolean;
  error: string | null;
  errorCode: string | null;
  startedAt: Date;
  full: boolean;
  nextPullAt: Date | null;
}

/** The source locked for "Sync now": what decides whether a pull may be asked for, and its mode. */
export interface RequestableSource {
  id: string;
  delta_since: Date | null;
  last_full_at: Date | null;
  full_every_hours: number;
  requested_run_id: string | null;
  pulling: boolean;
  cohort_id: string;
  cohort_name: string;
  cohort_archived_at: Date | null;
}

/** A pull asked for, as stored on the source. */
export interface RequestedPull {
  requested_run_id: string;
  requested_mode: PullMode;
  requested_at: Date;
}
