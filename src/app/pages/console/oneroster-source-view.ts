// The OneRoster source page's view: the form's values (from the stored source, or a refused
// post), the settings the form sends, and the pull history's rows.
import type { OneRosterSource, SourceSettings } from '../../../domain/oneroster/pull/sources.ts';
import type { RunSummary } from '../../../domain/runs/runs.ts';
import type { FieldText } from '../form-check.ts';
import { text } from './forms.ts';

export const sourceFields = [
  'base_url',
  'token_url',
  'client_id',
  'client_secret',
  'cohort_id',
  'org_ids',
  'term_types',
  'campus_org_types',
  'programs_from',
  'program_org_types',
  'student_id',
  'pull_every_minutes',
  'full_every_hours',
] as const;

/** How the form names its fields, for the sentences of the schema check (every field at once). */
export const sourceFieldTexts: Record<(typeof sourceFields)[number], FieldText> = {
  base_url: { label: 'Base URL' },
  token_url: { label: 'Token URL' },
  client_id: { label: 'Client id' },
  client_secret: { label: 'Client secret' },
  cohort_id: { label: 'Cohort', required: 'Choose a cohort for its students', hint: 'Choose a cohort' },
  org_ids: { label: 'Orgs to take', hint: 'Enter at most 500 sourcedIds, separated by commas' },
  term_types: { label: 'Session types that are terms', hint: 'Enter at most 100 names, separated by commas' },
  campus_org_types: {
    label: 'Org types that are campuses',
    hint: 'Enter at most 100 names, separated by commas',
  },
  programs_from: { label: 'Programs come from', hint: 'Choose where programs come from' },
  program_org_types: {
    label: 'Org types that are programs',
    hint: 'Enter at most 100 names, separated by commas',
  },
  student_id: { label: 'Student id', hint: 'Choose which user field is the student id' },
  pull_every_minutes: {
    label: 'Pull every (minutes)',
    hint: 'Enter a whole number of minutes from 5 to 10080, or leave it empty',
  },
  full_every_hours: {
    label: 'Full pull every (hours)',
    hint: 'Enter a whole number of hours from 1 to 8760',
  },
};

export type SourceValues = Record<(typeof sourceFields)[number], string>;

const joined = (xs: string[] | undefined) => (xs ?? []).join(', ');
const split = (value: string) =>
  value
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);

/** The form's values: the stored source's (never its secret), or empty ones. */
export function sourceValues(source: OneRosterSource | undefined): SourceValues {
  return {
    base_url: source?.base_url ?? '',
    token_url: source?.token_url ?? '',
    client_id: source?.client_id ?? '',
    client_secret: '',
    cohort_id: source?.cohort_id ?? '',
    org_ids: joined(source?.org_ids),
    term_types: joined(source?.term_types ?? ['term', 'semester']),
    campus_org_types: joined(source?.campus_org_types ?? ['school']),
    programs_from: source?.programs_from ?? 'orgs',
    program_org_types: joined(source?.program_org_types ?? ['department']),
    student_id: source?.student_id ?? 'identifier',
    pull_every_minutes: source?.pull_every_minutes ? String(source.pull_every_minutes) : '',
    full_every_hours: String(source?.full_every_hours ?? 24),
  };
}

/** The posted form's values, as typed (the secret is never shown back). */
export function postedValues(body: unknown): SourceValues {
  const values = Object.fromEntries(sourceFields.map((f) => [f, text(body, f)])) as SourceValues;
  return values;
}

/** The settings the posted form asks for; numbers that are not numbers are left to the domain's check. */
export function settingsOf(values: SourceValues): SourceSettings {
  const number = (v: string) => (v === '' ? null : Number(v));
  return {
    base_url: values.base_url,
    token_url: values.token_url,
    client_id: values.client_id,
    ...(values.client_secret ? { client_secret: values.client_secret } : {}),
    cohort_id: values.cohort_id,
    org_ids: split(values.org_ids),
    term_types: split(values.term_types),
    campus_org_types: split(values.campus_org_types),
    programs_from: values.programs_from as SourceSettings['programs_from'],
    program_org_types: split(values.program_org_types),
    student_id: values.student_id as SourceSettings['student_id'],
    pull_every_minutes: number(values.pull_every_minutes),
    full_every_hours: number(values.full_every_hours) ?? 24,
  };
}

export interface PullRow {
  /** The run's id; none while the pull has not ended (no run page yet). */
  id: string | undefined;
  started_at: Date | string;
  mode: string;
  status: string;
  created: number;
  updated: number;
  error_count: number;
}

/** A pull of the history as a row: when, full or delta, ok or failed, counts and errors. */
export function pullRow(run: RunSummary): PullRow {
  const counts = run.counts as { mode?: string; status?: string; created?: number; updated?: number };
  return {
    id: run.id,
    started_at: run.started_at,
    mode: counts.mode ?? '—',
    status: counts.status ?? '—',
    created: counts.created ?? 0,
    updated: counts.updated ?? 0,
    error_count: run.error_count,
  };
}

/** The pull Sync now asked for and that has not ended, atop the history: queued, or running. */
export function pendingRows(source: OneRosterSource | undefined): PullRow[] {
  if (!source?.requested_pull) return [];
  const asked = source.requested_pull;
  return [
    {
      id: undefined,
      started_at: asked.requested_at,
      mode: asked.mode,
      status: source.pulling ? 'running' : 'queued',
      created: 0,
      updated: 0,
      error_count: 0,
    },
  ];
}
