// What the operator's institutions page shows and sends, by pure functions: a page of
// institutions with the create form, and that form as posted and as the domain takes it (no time
// zone given is UTC).
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
export function institutionsView(institutions: Listing<Institution>, archived: ArchivedFilter = 'false') {
  return {
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
