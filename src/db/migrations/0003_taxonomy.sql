-- The rest of the taxonomy and enrolment feed (POST /api/sis/enrolments): the teaching
-- calendar (terms), units and enrolments. Programs, campuses and audience tags are in 0001.
-- Every natural key is matched case-insensitively within the institution, like programs.

CREATE TABLE terms (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  institution_id uuid NOT NULL REFERENCES institutions (id) ON DELETE CASCADE,
  code text NOT NULL,
  name text,
  start_date date NOT NULL,
  end_date date NOT NULL CHECK (end_date >= start_date),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX terms_code_key ON terms (institution_id, lower(code));

CREATE TABLE units (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  institution_id uuid NOT NULL REFERENCES institutions (id) ON DELETE CASCADE,
  code text NOT NULL,
  name text,
  program_id uuid REFERENCES programs (id) ON DELETE SET NULL,
  campus_id uuid REFERENCES campuses (id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX units_code_key ON units (institution_id, lower(code));
CREATE INDEX units_program_idx ON units (program_id);
CREATE INDEX units_campus_idx ON units (campus_id);

-- One enrolment per student, unit and term (the natural key); its status changes in place.
CREATE TABLE enrolments (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  institution_id uuid NOT NULL REFERENCES institutions (id) ON DELETE CASCADE,
  student_id uuid NOT NULL REFERENCES students (id) ON DELETE CASCADE,
  unit_id uuid NOT NULL REFERENCES units (id) ON DELETE CASCADE,
  term_id uuid NOT NULL REFERENCES terms (id) ON DELETE CASCADE,
  status text NOT NULL CHECK (status IN ('enrolled', 'withdrawn', 'completed')),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX enrolments_natural_key ON enrolments (student_id, unit_id, term_id);
CREATE INDEX enrolments_unit_term_idx ON enrolments (unit_id, term_id);
CREATE INDEX enrolments_term_idx ON enrolments (term_id);
CREATE INDEX enrolments_institution_idx ON enrolments (institution_id);
