// What the students page shows, built from the domain's own types by pure functions: the
// filters a URL gives, a page of the students with the filter choices (every cohort, program and
// campus when they fit in one read), and the export link carrying the same filters.
import type {
  CampusListing,
  Cohort,
  ProgramListing,
  StudentListing,
} from '../../../domain/institutions/schemas.ts';
import { when } from './forms.ts';
import { type Listing, listingUrl, searchOf } from './listing.ts';

/** The students page's filters as its form names them. */
export interface StudentFilters {
  q?: string;
  cohort_id?: string;
  program?: string;
  campus?: string;
  status?: string;
}

/** How the filter form labels each field (for the sentences of a refusal). */
export const studentFilterFields = {
  q: { label: 'Name, email or external id' },
  cohort_id: { label: 'Cohort' },
  program: { label: 'Program' },
  campus: { label: 'Campus' },
  status: { label: 'Departed' },
};

/** The filters of a students URL: trimmed, an empty one no filter. */
export function studentFilters(query: StudentFilters): StudentFilters {
  const trim = (value?: string) => value?.trim() || undefined;
  return {
    q: trim(query.q),
    cohort_id: trim(query.cohort_id),
    program: trim(query.program),
    campus: trim(query.campus),
    status: trim(query.status),
  };
}

/** The choices of the filters; a list too long for one read is a text field instead (undefined). */
export interface StudentChoices {
  cohorts?: readonly Cohort[];
  programs?: readonly ProgramListing[];
  campuses?: readonly CampusListing[];
}

/** The students page. */
export function studentsView(
  listing: Listing<StudentListing>,
  filters: StudentFilters,
  choices: StudentChoices,
  page: string,
) {
  const search = searchOf({ ...filters });
  return {
    title: 'Students',
    listing,
    filters,
    cohorts: choices.cohorts,
    cohortNames: Object.fromEntries((choices.cohorts ?? []).map((cohort) => [cohort.id, cohort.name])),
    programs: choices.programs,
    campuses: choices.campuses,
    self: listingUrl(page, { ...filters }),
    csv: `${page}.csv${search ? `?${search}` : ''}`,
    when,
  };
}
