// What the operator's institutions page shows and sends, by pure functions: a page of
// institutions with the create form, and that form as posted and as the domain takes it (no time
// zone given is UTC).

import { type InstitutionOverview, STUDENTS_COUNTED } from '../../../domain/institutions/queries.ts';
import type {
  ArchivedFilter,
  Institution,
  NewInstitutionBody,
} from '../../../domain/institutions/schemas.ts';
import type { FieldText } from '../form-check.ts';
import { text, timeZoneChoices, timeZoneField, when } from './forms.ts';
import type { Listing } from './listing.ts';

export const institutionFields: Record<string, FieldText> = {
  slug: {
    label: 'Slug',
    hint: 'Enter a slug of lower-case letters, digits and hyphens, starting with a letter or digit',
  },
  name: { label: 'Name' },
  time_zone: timeZoneField,
};

export interface InstitutionValues {
  slug: string;
  name: string;
  time_zone: string;
}

export function institutionValues(form: unknown): InstitutionValues {
  return { slug: text(form, 'slug'), name: text(form, 'name'), time_zone: text(form, 'time_zone') };
}

export function institutionInput(values: InstitutionValues): NewInstitutionBody {
  return {
    slug: values.slug,
    name: values.name,
    ...(values.time_zone ? { time_zone: values.time_zone } : {}),
  };
}

/** The institutions page: a page of them (as `archived` chose) and the empty create form (its zone UTC). */
/** An institution's overview in words for the operator's list: "1,204", "100,000 or more". */
export function overviewWords(o: InstitutionOverview | undefined, time: (value: unknown) => string = when) {
  if (!o) return { students: '—', lastPush: 'never', problems: 'none' };
  const n = (value: number) => value.toLocaleString('en');
  const problems = [
    o.last_push_errors
      ? `${n(o.last_push_errors)} row error${o.last_push_errors === 1 ? '' : 's'} in the last push`
      : '',
    o.failing ? `${n(o.failing)} integration${o.failing === 1 ? '' : 's'} failing` : '',
  ].filter(Boolean);
  return {
    students: o.students >= STUDENTS_COUNTED ? `${n(STUDENTS_COUNTED)} or more` : n(o.students),
    lastPush: o.last_push_at ? time(o.last_push_at) : 'never',
    problems: problems.length ? problems.join('; ') : 'none',
    bad: problems.length > 0,
  };
}

export function institutionsView(
  institutions: Listing<Institution>,
  archived: ArchivedFilter = 'false',
  overview: readonly InstitutionOverview[] = [],
) {
  const byId = new Map(overview.map((o) => [o.institution_id, o]));
  return {
    overviewOf: (id: string) => overviewWords(byId.get(id)),
    title: 'Institutions',
    institutions,
    archived,
    base: archived === 'false' ? '/console/' : `/console/?archived=${archived}`,
    zones: timeZoneChoices,
    values: { slug: '', name: '', time_zone: 'UTC' } as InstitutionValues,
    errors: {} as Record<string, string>,
    when,
  };
}

/** What archiving stops, named on the confirmation page (docs/archiving.md). */
export const archivingStops = [
  'Every push is refused: the roster and enrolment feeds, help-sync and ssp push.',
  'Its calendar feeds are not fetched, its OneRoster source is not pulled, and no webhook or notification email is sent for it.',
  'Its admins and staff can still sign in and read, but change nothing.',
  'Its students see a page saying the service is not available.',
];

/** The page that asks before an institution is archived, naming what will stop. */
export function archiveConfirmation(institution: Institution) {
  return {
    title: `Archive ${institution.name}?`,
    message:
      `Archive ${institution.name} (${institution.slug})? Nothing is deleted, and you can restore it from the ` +
      'institutions page at any time. While it is archived:',
    details: archivingStops,
    action: `/console/${institution.slug}/archive`,
    button: `Archive ${institution.name}`,
    back: '/console/',
  };
}
