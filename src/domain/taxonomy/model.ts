// The taxonomy's listings as they are read: an enrolment and the filters of the enrolments
// listing (the term and unit listings' shapes are beside their statements, queries.ts).

export interface EnrolmentListing {
  id: string;
  email: string;
  student_id_ext: string;
  unit_code: string;
  term_code: string;
  status: string;
  created_at: Date;
  updated_at: Date;
}

export interface EnrolmentFilter {
  termCode?: string;
  unitCode?: string;
  email?: string;
  status?: string;
}
