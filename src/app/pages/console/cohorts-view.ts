// What the cohort pages show and send, built from the institutions domain's own types by pure
// functions: the cohorts with the create form and the institution's time zone, a cohort's page,
// and a cohort form as posted and as the domain takes it (an empty start date clears it).
import type { ArchivedFilter, Cohort, CohortChangeBody } from '../../../domain/institutions/schemas.ts';
import type { FieldText } from '../form-check.ts';
import { text, timeZoneChoices, timeZoneField, when } from './forms.ts';
import type { Listing } from './listing.ts';

/** How the cohort forms name their fields. */
export const cohortFields: Record<string, FieldText> = {
  name: { label: 'Name' },
  clock: { label: 'Clock', hint: 'Choose the cohort clock or the individual clock' },
  start_date: {
    label: 'Start date',
    hint: 'Enter the start date as a date that exists, YYYY-MM-DD, for example 2026-09-07',
  },
};

export const timeZoneFields: Record<string, FieldText> = {
  time_zone: timeZoneField,
};

export interface CohortValues {
  name: string;
  clock: string;
  start_date: string;
}

/** A cohort form as posted (shown again when refused). */
export function cohortValues(form: unknown): CohortValues {
  return { name: text(form, 'name'), clock: text(form, 'clock'), start_date: text(form, 'start_date') };
}

/** What a cohort form asks the domain for: no clock given keeps (or defaults) it; no date clears it. */
export function cohortInput(values: CohortValues): CohortChangeBody {
  return {
    name: values.name,
    ...(values.clock ? { clock: values.clock as CohortChangeBody['clock'] } : {}),
    start_date: values.start_date || null,
  };
}

/** The cohorts page: a page of cohorts, the create form, and the institution's time zone. */
export function cohortsView(listing: Listing<Cohort>, timeZone: string, archived: ArchivedFilter = 'false') {
  return {
    title: 'Cohorts',
    listing,
    archived,
    values: { name: '', clock: 'cohort', start_date: '' } as CohortValues,
    errors: {} as Record<string, string>,
    timeZone: { value: timeZone } as { value: string; error?: string },
    zones: timeZoneChoices,
    when,
  };
}

/**
 * The ready commands of a cohort's first push (docs/ssp-push.md, the roster feed): a dry run
 * with `ssp`, and the same request with curl, against the service at `baseUrl`.
 */
export function firstPushCommands(cohortId: string, baseUrl: string) {
  const url = baseUrl.replace(/\/+$/, '');
  return {
    ssp: `SSP_URL=${url} SSP_ROSTER_SECRET=ssp_roster_… npx ssp push roster --cohort ${cohortId} roster.csv --dry-run`,
    curl: [
      `curl -X POST ${url}/api/sis/sync \\`,
      `  -H "Authorization: Bearer $SSP_ROSTER_SECRET" -H "Content-Type: application/json" \\`,
      `  -d '{"cohort_id":"${cohortId}","dry_run":true,"students":[{"email":"ada@example.edu","student_id_ext":"S1001","first_name":"Ada","last_name":"Lovelace"}]}'`,
    ].join('\n'),
  };
}

/** A cohort's page, its form filled in from the record, and the commands of a first push. */
export function cohortView(cohort: Cohort, baseUrl = 'http://127.0.0.1:3000') {
  return {
    // By its name alone: names are often "Cohort A" already.
    title: cohort.name,
    cohort,
    commands: firstPushCommands(cohort.id, baseUrl),
    values: { name: cohort.name, clock: cohort.clock, start_date: cohort.start_date ?? '' } as CohortValues,
    errors: {} as Record<string, string>,
    when,
  };
}

/** The page that asks before a cohort is archived, naming what stops and what stays. */
export function cohortArchiveConfirmation(cohort: Cohort, page: string) {
  return {
    title: `Archive ${cohort.name}?`,
    message: `Archive the cohort ${cohort.name}? Nothing is deleted, and you can restore it from its page. While it is archived:`,
    details: [
      'A roster push naming it (ssp push roster --cohort, a OneRoster push) is refused.',
      'A OneRoster source that pulls into it is not pulled.',
      'It is left out of the cohort lists unless you ask for archived ones.',
      'Its students stay, and are listed and can sign in as before.',
    ],
    action: `${page}/archive`,
    button: `Archive ${cohort.name}`,
    back: page,
  };
}
