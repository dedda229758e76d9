-- Tenants, their cohorts and credentials; the SIS roster and taxonomy; the event log.
-- Every tenant-owned table carries institution_id so queries are always scoped by it.

CREATE TABLE institutions (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  slug text NOT NULL CHECK (slug ~ '^[a-z0-9][a-z0-9-]{0,62}$'),
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX institutions_slug_key ON institutions (slug);

CREATE TABLE cohorts (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  institution_id uuid NOT NULL REFERENCES institutions (id) ON DELETE CASCADE,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  clock text NOT NULL DEFAULT 'cohort' CHECK (clock IN ('cohort', 'individual')),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX cohorts_institution_idx ON cohorts (institution_id);

-- Roster feed secrets: at most one active per institution; revoked rows are kept so that a
-- revoked institution never falls back to the bootstrap secret.
CREATE TABLE roster_secrets (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  institution_id uuid NOT NULL REFERENCES institutions (id) ON DELETE CASCADE,
  secret_hash text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz
);
CREATE UNIQUE INDEX roster_secrets_hash_key ON roster_secrets (secret_hash);
CREATE UNIQUE INDEX roster_secrets_one_active ON roster_secrets (institution_id) WHERE revoked_at IS NULL;

CREATE TABLE operator_credentials (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  token_hash text NOT NULL,
  label text NOT NULL DEFAULT 'operator',
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz
);
CREATE UNIQUE INDEX operator_credentials_hash_key ON operator_credentials (token_hash);

CREATE TABLE programs (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  institution_id uuid NOT NULL REFERENCES institutions (id) ON DELETE CASCADE,
  code text NOT NULL,
  name text,
  coordinator_name text,
  coordinator_title text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX programs_code_key ON programs (institution_id, lower(code));

CREATE TABLE campuses (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  institution_id uuid NOT NULL REFERENCES institutions (id) ON DELETE CASCADE,
  name text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX campuses_name_key ON campuses (institution_id, lower(name));

-- Audience tags let staff target messages; one is created with each program and campus.
CREATE TABLE audience_tags (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  institution_id uuid NOT NULL REFERENCES institutions (id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('program', 'campus')),
  source_id uuid NOT NULL,
  label text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX audience_tags_source_key ON audience_tags (institution_id, kind, source_id);

CREATE TABLE students (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  institution_id uuid NOT NULL REFERENCES institutions (id) ON DELETE CASCADE,
  cohort_id uuid NOT NULL REFERENCES cohorts (id) ON DELETE CASCADE,
  email text NOT NULL,
  student_id_ext text NOT NULL,
  first_name text,
  last_name text,
  program_id uuid REFERENCES programs (id) ON DELETE SET NULL,
  campus_id uuid REFERENCES campuses (id) ON DELETE SET NULL,
  first_in_family boolean,
  start_date date,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX students_email_key ON students (institution_id, lower(email));
CREATE UNIQUE INDEX students_ext_id_key ON students (institution_id, student_id_ext);
CREATE INDEX students_cohort_idx ON students (cohort_id);

-- The event log doubles as the transactional outbox: a change and the event announcing it
-- are written in one transaction; webhook delivery reads from here.
CREATE TABLE events (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  seq bigint GENERATED ALWAYS AS IDENTITY,
  institution_id uuid NOT NULL REFERENCES institutions (id) ON DELETE CASCADE,
  type text NOT NULL,
  help_request_id uuid,
  payload jsonb NOT NULL,
  occurred_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX events_seq_key ON events (seq);
CREATE INDEX events_institution_idx ON events (institution_id, seq);
