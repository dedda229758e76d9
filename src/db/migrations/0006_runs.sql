-- The history of SIS pushes: every roster and enrolments request, dry-run or real.
CREATE TABLE sis_runs (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  institution_id uuid NOT NULL REFERENCES institutions (id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('roster', 'enrolments')),
  credential text NOT NULL CHECK (credential IN ('institution_secret', 'bootstrap_secret')),
  cohort_id uuid,
  sections text[] NOT NULL DEFAULT '{}',
  dry_run boolean NOT NULL,
  received integer NOT NULL DEFAULT 0,
  counts jsonb NOT NULL DEFAULT '{}',
  error_count integer NOT NULL DEFAULT 0,
  -- Row errors as reported in the response, kept up to a cap so one bad push cannot bloat the table.
  errors jsonb NOT NULL DEFAULT '[]',
  errors_truncated boolean NOT NULL DEFAULT false,
  details jsonb NOT NULL DEFAULT '{}',
  started_at timestamptz NOT NULL,
  finished_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX sis_runs_institution_idx ON sis_runs (institution_id, started_at DESC, id);
