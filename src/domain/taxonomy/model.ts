// The taxonomy's listings as they are read: a term, a unit and an enrolment, and the filters
// of the units and enrolments listings.

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

interface Stamped {
  id: string;
  created_at: Date;
  updated_at: Date;
}

export interface TermListing extends Stamped {
  term_code: string;
  name: string | null;
  start_date: string;
  end_date: string;
}

export interface UnitListing extends Stamped {
  unit_code: string;
  name: string | null;
  program_code: string | null;
  campus_name: string | null;
}

export interface UnitFilter {
  /** Only the units of this program (code, case-insensitive). */
  programCode?: string;
}
