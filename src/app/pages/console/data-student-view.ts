// What a student's page shows, built from the domain's own types by a pure function: the
// student as the SIS pushed them with their cohort, a page of their help requests (when the
// role may read the inbox), their first enrolments, and the links to the rest.

import type { Paged } from '../../../db/keyset.ts';
import type { HelpRequest } from '../../../domain/helpdesk/schemas.ts';
import type { Cohort, StudentListing } from '../../../domain/institutions/schemas.ts';
import type { EnrolmentListing } from '../../../domain/taxonomy/enrolment-listing.ts';
import { when } from './forms.ts';
import { type Listing, searchOf } from './listing.ts';

export interface StudentPage {
  student: StudentListing;
  cohort: Cohort;
  /** A page of their help requests; undefined when the role does not read the inbox. */
  requests?: Listing<HelpRequest>;
  /** Their first enrolments; the rest are on the enrolments page, filtered by their email. */
  enrolments: Paged<EnrolmentListing>;
  /** Whether the cohort's own page (an admin's) is linked. */
  cohortLink: boolean;
}

/** A student's page under /console/{slug}. */
export function studentView(data: StudentPage, slug: string) {
  const { student } = data;
  const name = [student.first_name, student.last_name].filter(Boolean).join(' ');
  return {
    title: name || student.email,
    name,
    student,
    cohort: data.cohort,
    cohortLink: data.cohortLink,
    requests: data.requests,
    enrolments: data.enrolments,
    self: `/console/${slug}/students/${student.id}`,
    allEnrolments: `/console/${slug}/enrolments?${searchOf({ email: student.email })}`,
    when,
  };
}
